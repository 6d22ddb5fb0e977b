package org.clustersim.core;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.DeviceSpeeds;
import org.clustersim.core.engine.Engine;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.kernel.HeapKernel;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.core.network.AnalyticalNetwork;
import org.clustersim.core.network.FabricNetwork;
import org.clustersim.core.network.FlowNetwork;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Topology;

/**
 * One simulated run of a task graph on a topology: a fresh event kernel of the chosen kind, the
 * network model of the chosen fidelity, scheduled link faults and device slowdowns, and the
 * engine, wired together. {@link RunOptions} says which.
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
        /**
         * When the flow starts, the equal-cost next hop whose way on to the destination leaf has
         * the least-loaded busiest link, in flows (adaptive routing).
         */
        ADAPTIVE
    }

    /**
     * Which discrete-event kernel runs the events. Both run actions of one instant in the order
     * they were scheduled, so a run's result is the same on either; they differ in speed only.
     */
    public enum Kernel {
        /** DSOL's DEVS simulator ({@link DsolKernel}), the kernel the design names. */
        DSOL,
        /**
         * {@link HeapKernel}: events grouped by instant in primitive arrays; about as fast as
         * {@link DsolKernel} since that one also runs an instant's events as one DSOL event
         * (docs/benchmarks.md, "Event loop: per-event cost").
         */
        HEAP;

        /** A fresh kernel of this kind, for one run. */
        SimKernel create() {
            return this == DSOL ? new DsolKernel() : new HeapKernel();
        }
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

    /** Runs the graph with the {@link RunOptions#DEFAULT default options}: the flow model, every link healthy. */
    public static Timeline run(TaskGraph graph, Topology topology) {
        return run(graph, topology, RunOptions.DEFAULT).timeline();
    }

    /** Runs the graph to completion as {@code options} say and returns what happened. */
    public static Result run(TaskGraph graph, Topology topology, RunOptions options) {
        if (graph.devices().size() > topology.deviceCount()) {
            throw new IllegalArgumentException("task graph uses " + graph.devices().size()
                    + " devices but topology " + topology.name() + " has " + topology.deviceCount());
        }
        SimKernel kernel = options.kernel().create();
        Counters counters = new Counters();
        LinkStates states = LinkStates.healthy(topology);
        Counters linkCounters = options.linkTracks() ? counters : null;
        FabricNetwork network = options.fidelity() == Fidelity.FLOW
                ? new FlowNetwork(topology, kernel, states, linkCounters, options.routing() == Routing.ADAPTIVE)
                : new AnalyticalNetwork(topology, kernel, states, linkCounters);
        for (LinkEvent e : options.linkEvents()) {
            var link = topology.links().get(e.linkId());
            if (e.atNs() == 0) {
                states.setFactor(link.id(), e.capacityFactor());
                states.setExtraLatencyNs(link.id(), e.extraLatencyNs());
            } else {
                kernel.schedule(e.atNs(), () -> network.setLinkState(link, e.capacityFactor(), e.extraLatencyNs()));
            }
        }
        DeviceSpeeds speeds = new DeviceSpeeds(graph.devices().size());
        for (DeviceEvent e : options.deviceEvents()) {
            if (e.device() < 0 || e.device() >= graph.devices().size()) {
                throw new IllegalArgumentException("no device " + e.device() + " in the task graph");
            }
            if (e.atNs() == 0) {
                speeds.set(e.device(), e.speed());
            } else {
                kernel.schedule(e.atNs(), () -> speeds.set(e.device(), e.speed()));
            }
        }
        Timeline timeline = new Engine(graph, kernel, network, counters, speeds, options.interference()).run();
        long rerates = network instanceof FlowNetwork f ? f.rerates() : 0;
        long flows = network instanceof FlowNetwork f ? f.flowsRerated() : 0;
        return new Result(timeline, network.usage(), rerates, flows);
    }
}
