package org.clustersim.core.kernel;

import nl.tudelft.simulation.dsol.SimRuntimeException;
import nl.tudelft.simulation.dsol.eventlists.EventListPriorityQueue;
import nl.tudelft.simulation.dsol.experiment.SingleReplication;
import nl.tudelft.simulation.dsol.formalisms.eventscheduling.LambdaSimEvent;
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
 * <p>DSOL's replication schedules its own warm-up and end-of-replication events; they are
 * removed right after initialisation, the run length is set far beyond any training step
 * (about 146 years), and the loop stops when none of our events is pending.
 */
public final class DsolKernel implements SimKernel {
    private static final long RUN_LENGTH_NS = Long.MAX_VALUE / 2;
    private static final Object CONSTRUCTION_LOCK = new Object();

    private final DevsSimulator<Long> simulator;
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
        simulator.getEventList().clear();
    }

    @Override
    public long now() {
        return simulator.getSimulatorTime();
    }

    @Override
    public void schedule(long atNs, Runnable action) {
        if (atNs < simulator.getSimulatorTime()) {
            throw new IllegalArgumentException("cannot schedule at " + atNs + " ns, before now ("
                    + simulator.getSimulatorTime() + " ns)");
        }
        pending++;
        simulator.scheduleEvent(new KernelEvent(atNs, action));
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

        KernelEvent(long at, Runnable action) {
            super(at, () -> { });
            this.action = action;
        }

        @Override
        public void execute() {
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
