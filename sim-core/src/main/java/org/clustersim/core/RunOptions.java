package org.clustersim.core;

import java.util.List;
import java.util.Objects;

import org.clustersim.core.engine.Interference;

/**
 * How {@link Simulation#run(org.clustersim.core.engine.TaskGraph, org.clustersim.topology.Topology, RunOptions)}
 * runs a task graph: the network model, routing, scheduled link and device changes, whether link
 * throughput is recorded, interference and the event kernel. Start from {@link #DEFAULT} and change
 * what differs with the {@code with...} methods, so a new setting is one more component here and no
 * caller that leaves it alone changes.
 *
 * @param fidelity     how communication is modelled
 * @param routing      how the fabric picks among equal-cost paths
 * @param linkEvents   changes of link state (faults) at simulated times
 * @param deviceEvents changes of device speed (stragglers) at simulated times
 * @param linkTracks   record every link's throughput over time as counter tracks (one sample per
 *                     rate change: off for large runs)
 * @param interference what each communication task takes from its devices' compute while in flight
 * @param kernel       the discrete-event kernel that runs the events
 */
public record RunOptions(Simulation.Fidelity fidelity, Simulation.Routing routing,
                         List<Simulation.LinkEvent> linkEvents, List<Simulation.DeviceEvent> deviceEvents,
                         boolean linkTracks, Interference interference, Simulation.Kernel kernel) {

    /** The flow model, ECMP, every link and device healthy, link tracks on, no interference, DSOL. */
    public static final RunOptions DEFAULT = new RunOptions(Simulation.Fidelity.FLOW, Simulation.Routing.ECMP,
            List.of(), List.of(), true, Interference.NONE, Simulation.Kernel.DSOL);

    public RunOptions {
        Objects.requireNonNull(fidelity, "fidelity");
        Objects.requireNonNull(routing, "routing");
        linkEvents = List.copyOf(linkEvents);
        deviceEvents = List.copyOf(deviceEvents);
        Objects.requireNonNull(interference, "interference");
        Objects.requireNonNull(kernel, "kernel");
    }

    public RunOptions withFidelity(Simulation.Fidelity f) {
        return new RunOptions(f, routing, linkEvents, deviceEvents, linkTracks, interference, kernel);
    }

    public RunOptions withRouting(Simulation.Routing r) {
        return new RunOptions(fidelity, r, linkEvents, deviceEvents, linkTracks, interference, kernel);
    }

    public RunOptions withLinkEvents(List<Simulation.LinkEvent> events) {
        return new RunOptions(fidelity, routing, events, deviceEvents, linkTracks, interference, kernel);
    }

    public RunOptions withDeviceEvents(List<Simulation.DeviceEvent> events) {
        return new RunOptions(fidelity, routing, linkEvents, events, linkTracks, interference, kernel);
    }

    public RunOptions withLinkTracks(boolean tracks) {
        return new RunOptions(fidelity, routing, linkEvents, deviceEvents, tracks, interference, kernel);
    }

    public RunOptions withInterference(Interference i) {
        return new RunOptions(fidelity, routing, linkEvents, deviceEvents, linkTracks, i, kernel);
    }

    public RunOptions withKernel(Simulation.Kernel k) {
        return new RunOptions(fidelity, routing, linkEvents, deviceEvents, linkTracks, interference, k);
    }
}
