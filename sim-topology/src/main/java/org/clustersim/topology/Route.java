package org.clustersim.topology;

import java.util.List;

/**
 * The ordered links a flow crosses from one accelerator to another.
 *
 * @param links links in the order the bytes traverse them; empty for a device talking to itself
 */
public record Route(List<Link> links) {
    public Route {
        links = List.copyOf(links);
    }

    /** Sum of the per-hop latencies, in nanoseconds. */
    public long latencyNs() {
        long sum = 0;
        for (Link l : links) {
            sum += l.latencyNs();
        }
        return sum;
    }

    /** Smallest link bandwidth on the route, bytes per second; infinite for an empty route. */
    public double bottleneckBytesPerS() {
        double min = Double.POSITIVE_INFINITY;
        for (Link l : links) {
            min = Math.min(min, l.bandwidthBytesPerS());
        }
        return min;
    }

    /** Number of links crossed. */
    public int hops() {
        return links.size();
    }
}
