package org.clustersim.core.kernel;

import java.util.Arrays;

import nl.tudelft.simulation.dsol.SimRuntimeException;
import nl.tudelft.simulation.dsol.eventlists.EventListInterface;
import nl.tudelft.simulation.dsol.eventlists.EventListPriorityQueue;
import nl.tudelft.simulation.dsol.experiment.SingleReplication;
import nl.tudelft.simulation.dsol.formalisms.eventscheduling.LambdaSimEvent;
import nl.tudelft.simulation.dsol.formalisms.eventscheduling.SimEventInterface;
import nl.tudelft.simulation.dsol.model.AbstractDsolModel;
import nl.tudelft.simulation.dsol.simulators.DevsSimulator;
import nl.tudelft.simulation.dsol.simulators.DevsSimulatorInterface;

/**
 * {@link SimKernel} on DSOL's {@link DevsSimulator} with {@code Long} nanosecond time.
 *
 * <p>Uses the binary-heap event list and an event class with a constant {@code toString()}:
 * DSOL formats every scheduled event's description for its trace log, which otherwise costs
 * a quarter to a half of the run time. Events are executed by a loop of {@code step()} on
 * the caller's thread so that an exception thrown by an action reaches the caller; the
 * simulator's worker thread is cleaned up when the run ends so no thread outlives the run.
 *
 * <p>One DSOL event stands for each pending instant and holds that instant's actions in the
 * order they were scheduled; when DSOL's {@code step()} executes it, it runs them in that order,
 * and actions scheduled for the same instant meanwhile join its end. That is DSOL's own order
 * (time, then its event id, counted in the order events are made), so a run gives the same
 * results as with one DSOL event per action. Why: with every replica of a 16,384-GPU step
 * simulated, 99% of events fall on a pending instant (at most some 20 instants are pending at
 * once, against a thousand and more events), and per action DSOL paid an event object with a
 * boxed time and a global atomic id, a sift through its event list, two listener notifications
 * in {@code step()}, and in {@code DevsSimulator.scheduleEvent} a trace-log call (a logger
 * lookup in a concurrent map: 13% of the largest run's samples). An instant's event goes
 * straight onto DSOL's event list once its time is checked here, as {@code scheduleEvent}
 * checks it, and compares on its primitive time and id. DSOL's event list and {@code step()}
 * still order the instants and advance the clock.
 *
 * <p>DSOL's replication schedules its own warm-up and end-of-replication events; they are
 * removed right after initialisation, the run length is set far beyond any training step
 * (about 146 years), and the loop stops when none of our events is pending.
 */
public final class DsolKernel implements SimKernel {
    private static final long RUN_LENGTH_NS = Long.MAX_VALUE / 2;
    private static final Object CONSTRUCTION_LOCK = new Object();

    private final DevsSimulator<Long> simulator;
    private final EventListInterface<Long> events;
    /** The time of the instant being executed (DSOL's clock, unboxed); 0 before the run. */
    private long now;
    /** The pending instants by time: open addressing, linear probing, no tombstones. */
    private long[] slotTime = new long[64];
    private Instant[] slotInstant = new Instant[64];
    private int instants;
    private long pending;
    private long executed;
    private boolean ran;

    public DsolKernel() {
        // DSOL keeps JVM-wide state that its constructors change without locking: the simulator
        // registers its log formatter in djutils' CategoryLogger maps, and a replication binds its
        // id in one naming context with a lookup-then-create. Kernels made at once on several
        // threads (a plan's candidates) failed there ("key step already bound", a null logger);
        // kernels are therefore made one at a time. Running them stays concurrent.
        synchronized (CONSTRUCTION_LOCK) {
            simulator = new DevsSimulator<>("clustersim");
            simulator.setEventList(new EventListPriorityQueue<>());
            SingleReplication<Long> replication = new SingleReplication<>("step", 0L, 0L, RUN_LENGTH_NS);
            simulator.initialize(new EmptyModel(simulator), replication);
        }
        // Drop DSOL's own warm-up and end-of-replication events: the loop below decides when the run ends.
        events = simulator.getEventList();
        events.clear();
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public void schedule(long atNs, Runnable action) {
        if (atNs < now) {
            throw new IllegalArgumentException("cannot schedule at " + atNs + " ns, before now (" + now + " ns)");
        }
        pending++;
        instantAt(atNs).add(action);
    }

    @Override
    public long run() {
        if (ran) {
            throw new IllegalStateException("a DsolKernel runs once");
        }
        ran = true;
        try {
            while (pending > 0) {
                try {
                    simulator.step();
                } catch (SimulationException e) {
                    throw e;
                } catch (SimRuntimeException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof SimulationException se) {
                        throw se;
                    }
                    throw new SimulationException(now(), null, cause);
                } catch (RuntimeException | Error e) {
                    throw new SimulationException(now(), null, e);
                }
            }
            return executed;
        } finally {
            simulator.cleanUp();
        }
    }

    /** Events executed so far. */
    public long eventsExecuted() {
        return executed;
    }

    /** The pending instant at {@code t}, made and put on DSOL's event list if there is none. */
    private Instant instantAt(long t) {
        int mask = slotTime.length - 1;
        int i = TimeSlots.of(t, mask);
        for (Instant in = slotInstant[i]; in != null; in = slotInstant[i]) {
            if (slotTime[i] == t) {
                return in;
            }
            i = (i + 1) & mask;
        }
        Instant made = new Instant(t);
        slotTime[i] = t;
        slotInstant[i] = made;
        if (2 * ++instants > slotTime.length) {
            rehash(slotTime.length * 2);
        }
        events.add(made);
        return made;
    }

    /** Drops instant {@code t} from the table, shifting later entries of its probe run back. */
    private void forget(long t) {
        int mask = slotTime.length - 1;
        int i = TimeSlots.of(t, mask);
        while (slotTime[i] != t || slotInstant[i] == null) {
            i = (i + 1) & mask;
        }
        int hole = i;
        for (int j = (hole + 1) & mask; slotInstant[j] != null; j = (j + 1) & mask) {
            int home = TimeSlots.of(slotTime[j], mask);
            // an entry may fill the hole unless its home lies cyclically after the hole, up to it
            boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                slotTime[hole] = slotTime[j];
                slotInstant[hole] = slotInstant[j];
                hole = j;
            }
        }
        slotInstant[hole] = null;
        instants--;
    }

    private void rehash(int capacity) {
        long[] oldTime = slotTime;
        Instant[] oldInstant = slotInstant;
        slotTime = new long[capacity];
        slotInstant = new Instant[capacity];
        int mask = capacity - 1;
        for (int j = 0; j < oldTime.length; j++) {
            if (oldInstant[j] != null) {
                int i = TimeSlots.of(oldTime[j], mask);
                while (slotInstant[i] != null) {
                    i = (i + 1) & mask;
                }
                slotTime[i] = oldTime[j];
                slotInstant[i] = oldInstant[j];
            }
        }
    }

    /** One pending instant: its actions in the order they were scheduled. */
    private final class Instant extends LambdaSimEvent<Long> {
        private static final long serialVersionUID = 1L;
        private final long at;
        private Runnable[] actions = new Runnable[8];
        private int count;

        Instant(long at) {
            super(at, () -> { });
            this.at = at;
        }

        void add(Runnable action) {
            if (count == actions.length) {
                actions = Arrays.copyOf(actions, count * 2);
            }
            actions[count++] = action;
        }

        /** DSOL's order (time, priority, id) on primitives: every event here has the default priority. */
        @Override
        public int compareTo(SimEventInterface<Long> o) {
            if (o instanceof Instant k) {
                int byTime = Long.compare(at, k.at);
                return byTime != 0 ? byTime : Long.compare(id, k.id);
            }
            return super.compareTo(o);
        }

        /** Runs the instant's actions in order, those scheduled for it meanwhile included, then forgets it. */
        @Override
        public void execute() {
            now = at;
            for (int k = 0; k < count; k++) {
                Runnable action = actions[k];
                actions[k] = null;
                pending--;
                executed++;
                action.run();
            }
            forget(at);
        }

        @Override
        public String toString() {
            return "Instant";
        }
    }

    /** DSOL needs a model to initialise a replication; ours schedules its events directly. */
    private static final class EmptyModel extends AbstractDsolModel<Long, DevsSimulatorInterface<Long>> {
        private static final long serialVersionUID = 1L;

        EmptyModel(DevsSimulatorInterface<Long> simulator) {
            super(simulator);
        }

        @Override
        public void constructModel() {
            // nothing: events are scheduled through DsolKernel.schedule
        }
    }
}
