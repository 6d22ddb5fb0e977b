package org.clustersim.core.network;

import org.clustersim.core.engine.Network;
import org.clustersim.topology.Link;

/** A network over a topology's links, whose state can change while a run goes on. */
public interface FabricNetwork extends Network {
    /**
     * Sets a link's state from now on.
     *
     * @param capacityFactor fraction of nominal capacity: 0 down, 1 healthy
     * @param extraLatencyNs latency added to the link
     */
    void setLinkState(Link link, double capacityFactor, long extraLatencyNs);

    /** Bytes, busy time and throughput per link so far. */
    LinkUsage usage();
}
