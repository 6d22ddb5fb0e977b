package org.clustersim.topology;

import java.util.List;

/**
 * The ordered links a flow crosses from one accelerator to another. Immutable; it also keeps
 * its links' ids as an array, which the flow model reads for every flow it places (a route is
 * cached and shared by many flows, so the array is made once).
 */
public final class Route {
    private final List<Link> links;
    private final int[] ids;
    private final long latencyNs;

    /** @param links links in the order the bytes traverse them; empty for a device talking to itself */
    public Route(List<Link> links) {
        this(links.toArray(new Link[0]));
    }

    /** From an array the caller made for this route (the list copies it once; routes are cached by the million). */
    private Route(Link[] array) {
        this.links = List.of(array);
        this.ids = new int[array.length];
        long latency = 0;
        for (int i = 0; i < array.length; i++) {
            ids[i] = array[i].id();
            latency += array[i].latencyNs();
        }
        this.latencyNs = latency;
    }

    /** A route over links in an array made for it, which is not kept (routers build one per route). */
    static Route of(Link[] links) {
        return new Route(links);
    }

    /** Links in the order the bytes traverse them; empty for a device talking to itself. */
    public List<Link> links() {
        return links;
    }

    /**
     * The links' ids in order, shared by every user of this route: read it, never write to it.
     * The flow model works on ids, so that placing a flow does not visit each link object.
     */
    public int[] sharedIds() {
        return ids;
    }

    /** Sum of the per-hop latencies, in nanoseconds. */
    public long latencyNs() {
        return latencyNs;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Route r && links.equals(r.links);
    }

    @Override
    public int hashCode() {
        return links.hashCode();
    }

    @Override
    public String toString() {
        return "Route[links=" + links + "]";
    }
}
