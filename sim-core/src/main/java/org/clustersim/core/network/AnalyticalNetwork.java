package org.clustersim.core.network;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The {@code analytical} fidelity: every flow runs alone at the bottleneck capacity of its
 * route and arrives after the route's summed per-hop latency plus {@code bytes / capacity}.
 * Flows do not share links, so there is no congestion; this is exact for traffic that never
 * overlaps on a link and fast for everything. Routing and link health are the same as in the
 * flow model.
 */
public final class AnalyticalNetwork implements FabricNetwork {
    private final Topology topology;
    private final SimKernel kernel;
    private final LinkStates states;
    private final LinkUsage usage;

    public AnalyticalNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters) {
        this.topology = topology;
        this.kernel = kernel;
        this.states = states;
        this.usage = new LinkUsage(topology, counters);
    }

    @Override
    public void transfer(String owner, Phase phase, Runnable onDone) {
        long now = kernel.now();
        long done = now;
        for (Flow f : phase.flows()) {
            done = Math.max(done, now + flowTimeNs(owner, f, now));
        }
        kernel.schedule(done + phase.extraLatencyNs(), onDone);
    }

    /** Time one flow takes on its own: route latency plus serialisation at the bottleneck. */
    private long flowTimeNs(String owner, Flow f, long now) {
        if (f.srcDevice() == f.dstDevice()) {
            return 0;
        }
        Route route = Routes.of(topology, f, states, owner);
        double rate = Double.POSITIVE_INFINITY;
        long latency = 0;
        for (Link l : route.links()) {
            rate = Math.min(rate, states.capacity(l));
            latency += states.latencyNs(l);
        }
        long serialNs = (long) Math.ceil(f.bytes() * 1e9 / rate);
        if (f.bytes() > 0) {
            for (Link l : route.links()) {
                usage.carried(l, f.bytes(), serialNs);
                usage.rateChange(l, now, rate);
                usage.rateChange(l, now + serialNs, -rate);
            }
        }
        return latency + serialNs;
    }

    /** Later flows see the new state; flows already under way keep the time they were given. */
    @Override
    public void setLinkState(Link link, double capacityFactor, long extraLatencyNs) {
        states.setFactor(link.id(), capacityFactor);
        states.setExtraLatencyNs(link.id(), extraLatencyNs);
    }

    @Override
    public LinkUsage usage() {
        return usage;
    }
}
