package org.clustersim.core.kernel;

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
 * <p>Events go straight onto the simulator's event list once their time is checked here, as
 * {@code DevsSimulator.scheduleEvent} would check it: that method also builds a trace-log call
 * per event (a logger lookup in a concurrent map, an argument array), a tenth of the loop's
 * time on the largest runs. Events compare on their primitive time and DSOL's event id (the
 * order DSOL's own comparison gives them, without unboxing) and the clock is read from the
 * event being executed; DSOL's event list and {@code step()} still run the simulation. A step
 * runs the first pending event and then takes every other event of the same instant off the
 * list in order and runs it: the same events in the same order as one step each, without a
 * step's checks and its two notifications of listeners (there are none) per event. With every
 * replica of a 16,384-GPU step simulated, 99% of events fall on the instant of the one before.
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
    /** The time of the event being executed (DSOL's clock, unboxed); 0 before the run. */
    private long now;
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
        events.add(new KernelEvent(atNs, action));
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

    private final class KernelEvent extends LambdaSimEvent<Long> {
        private static final long serialVersionUID = 1L;
        private final Runnable action;
        private final long at;

        KernelEvent(long at, Runnable action) {
            super(at, () -> { });
            this.action = action;
            this.at = at;
        }

        /** DSOL's order (time, priority, id) on primitives: every event here has the default priority. */
        @Override
        public int compareTo(SimEventInterface<Long> o) {
            if (o instanceof KernelEvent k) {
                int byTime = Long.compare(at, k.at);
                return byTime != 0 ? byTime : Long.compare(id, k.id);
            }
            return super.compareTo(o);
        }

        /** Runs this event and then every event pending for the same instant, in the list's order. */
        @Override
        public void execute() {
            runAction();
            SimEventInterface<Long> next;
            while ((next = events.first()) instanceof KernelEvent k && k.at == at) {
                events.removeFirst();
                k.runAction();
            }
        }

        private void runAction() {
            now = at;
            pending--;
            executed++;
            action.run();
        }

        @Override
        public String toString() {
            return "KernelEvent";
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
