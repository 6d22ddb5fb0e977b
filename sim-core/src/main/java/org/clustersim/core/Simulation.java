package org.clustersim.core;

import java.util.List;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.DeviceSpeeds;
import org.clustersim.core.engine.Engine;
import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.kernel.HeapKernel;
import org.clustersim.core.network.AnalyticalNetwork;
import org.clustersim.core.network.FabricNetwork;
import org.clustersim.core.network.FlowNetwork;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Topology;

/**
 * One simulated run of a task graph on a topology: a fresh DSOL kernel, the network model of
 * the chosen fidelity, scheduled link faults, and the engine, wired together.
 */
public final class Simulation {
    /** How communication is modelled. */
    public enum Fidelity {
        /** Every flow at its route's bottleneck capacity, no sharing. */
        ANALYTICAL,
        /** Flows share link capacity by max-min fairness (the default). */
        FLOW
    }

    /** How the fabric picks among equal-cost paths. */
    public enum Routing {
        /** A static hash of the flow picks the next hop (the default). */
        ECMP,
        /** The next hop carrying the fewest flows when the flow starts (adaptive routing). */
        ADAPTIVE
    }

    /**
     * A change of one link's state at a simulated time.
     *
     * @param linkId         link index in the topology
     * @param atNs           when it happens (0: from the start)
     * @param capacityFactor fraction of nominal capacity from then on: 0 down, 1 healthy
     * @param extraLatencyNs latency added to the link from then on
     */
    public record LinkEvent(int linkId, long atNs, double capacityFactor, long extraLatencyNs) {
    }

    /**
     * A change of one device's compute speed at a simulated time.
     *
     * @param device index of the device in the task graph
     * @param atNs   when it happens (0: from the start)
     * @param speed  relative speed from then on: 1 nominal, 0.8 a straggler
     */
    public record DeviceEvent(int device, long atNs, double speed) {
    }

    /**
     * What a run produced.
     *
     * @param timeline     every task's start and end, counters
     * @param links        bytes, busy time and throughput per link
     * @param rerates      how many times the flow model re-rated a component (0 for analytical)
     * @param flowsRerated flows re-rated, summed over all re-ratings
     */
    public record Result(Timeline timeline, LinkUsage links, long rerates, long flowsRerated) {
    }

    private Simulation() {
    }

    /** Runs the graph with the flow model and every link healthy. */
    public static Timeline run(TaskGraph graph, Topology topology) {
        return run(graph, topology, Fidelity.FLOW, List.of()).timeline();
    }

    /** Runs the graph with ECMP routing. */
    public static Result run(TaskGraph graph, Topology topology, Fidelity fidelity, List<LinkEvent> linkEvents) {
        return run(graph, topology, fidelity, Routing.ECMP, linkEvents);
    }

    /** Runs the graph with link throughput tracks recorded. */
    public static Result run(TaskGraph graph, Topology topology, Fidelity fidelity, Routing routing,
                             List<LinkEvent> linkEvents) {
        return run(graph, topology, fidelity, routing, linkEvents, true);
    }

    /**
     * Runs the graph to completion and returns what happened.
     *
     * @param linkTracks record every link's throughput over time as counter tracks (one sample
     *                   per rate change: off for large runs)
     */
    public static Result run(TaskGraph graph, Topology topology, Fidelity fidelity, Routing routing,
                             List<LinkEvent> linkEvents, boolean linkTracks) {
        return run(graph, topology, fidelity, routing, linkEvents, List.of(), linkTracks);
    }

    /**
     * Runs the graph to completion with link faults and device slowdowns.
     *
     * @param deviceEvents changes of device speed (stragglers)
     */
    public static Result run(TaskGraph graph, Topology topology, Fidelity fidelity, Routing routing,
                             List<LinkEvent> linkEvents, List<DeviceEvent> deviceEvents, boolean linkTracks) {
        return run(graph, topology, fidelity, routing, linkEvents, deviceEvents, linkTracks, Interference.NONE);
    }

    /**
     * Runs the graph to completion with link faults, device slowdowns and compute slowed by the
     * communication beside it.
     *
     * @param interference what each communication task takes from its devices' compute while in flight
     */
    public static Result run(TaskGraph graph, Topology topology, Fidelity fidelity, Routing routing,
                             List<LinkEvent> linkEvents, List<DeviceEvent> deviceEvents, boolean linkTracks,
                             Interference interference) {
        if (graph.devices().size() > topology.deviceCount()) {
            throw new IllegalArgumentException("task graph uses " + graph.devices().size()
                    + " devices but topology " + topology.name() + " has " + topology.deviceCount());
        }
        HeapKernel kernel = new HeapKernel();
        Counters counters = new Counters();
        LinkStates states = LinkStates.healthy(topology);
        Counters linkCounters = linkTracks ? counters : null;
        FabricNetwork network = fidelity == Fidelity.FLOW
                ? new FlowNetwork(topology, kernel, states, linkCounters, routing == Routing.ADAPTIVE)
                : new AnalyticalNetwork(topology, kernel, states, linkCounters);
        for (LinkEvent e : linkEvents) {
            var link = topology.links().get(e.linkId());
            if (e.atNs() == 0) {
                states.setFactor(link.id(), e.capacityFactor());
                states.setExtraLatencyNs(link.id(), e.extraLatencyNs());
            } else {
                kernel.schedule(e.atNs(), () -> network.setLinkState(link, e.capacityFactor(), e.extraLatencyNs()));
            }
        }
        DeviceSpeeds speeds = new DeviceSpeeds(graph.devices().size());
        for (DeviceEvent e : deviceEvents) {
            if (e.device() < 0 || e.device() >= graph.devices().size()) {
                throw new IllegalArgumentException("no device " + e.device() + " in the task graph");
            }
            if (e.atNs() == 0) {
                speeds.set(e.device(), e.speed());
            } else {
                kernel.schedule(e.atNs(), () -> speeds.set(e.device(), e.speed()));
            }
        }
        Timeline timeline = new Engine(graph, kernel, network, counters, speeds, interference).run();
        long rerates = network instanceof FlowNetwork f ? f.rerates() : 0;
        long flows = network instanceof FlowNetwork f ? f.flowsRerated() : 0;
        return new Result(timeline, network.usage(), rerates, flows);
    }
}
