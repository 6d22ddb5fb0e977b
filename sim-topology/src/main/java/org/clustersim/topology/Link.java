package org.clustersim.topology;

/**
 * A directed link: one direction of a cable or of an on-board connection.
 *
 * <p>Full-duplex connections are two links, one per direction, each with the full bandwidth
 * the hardware offers in that direction.
 *
 * @param id                 dense index of the link in its topology, 0-based
 * @param src                transmitting vertex
 * @param dst                receiving vertex
 * @param kind               technology class
 * @param bandwidthBytesPerS capacity in bytes per second in this direction
 * @param latencyNs          one-way propagation and switching latency added by this hop
 * @param lane               which of several parallel links between the same two vertices, in
 *                           order of creation (0 for the first or only one)
 */
public record Link(int id, Vertex src, Vertex dst, LinkKind kind, double bandwidthBytesPerS, long latencyNs,
                   int lane) {
    public Link {
        if (lane < 0) {
            throw new IllegalArgumentException("lane must not be negative: " + lane);
        }
        if (!(bandwidthBytesPerS > 0)) {
            throw new IllegalArgumentException("link bandwidth must be positive: " + bandwidthBytesPerS);
        }
        if (latencyNs < 0) {
            throw new IllegalArgumentException("link latency must not be negative: " + latencyNs);
        }
    }

    /** Links are identified by their id within a topology; equality and hashing use it alone (hot path). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Link l && l.id == id && l.src.id() == src.id() && l.dst.id() == dst.id();
    }

    @Override
    public int hashCode() {
        return id;
    }

    /** A single link (lane 0). */
    public Link(int id, Vertex src, Vertex dst, LinkKind kind, double bandwidthBytesPerS, long latencyNs) {
        this(id, src, dst, kind, bandwidthBytesPerS, latencyNs, 0);
    }

    /**
     * Stable name such as {@code node0.gpu3->node0.nvswitch}; parallel links after the first
     * carry their lane, {@code su0.leaf5->spine2#1}.
     */
    public String name() {
        return src.name() + "->" + dst.name() + (lane > 0 ? "#" + lane : "");
    }

    @Override
    public String toString() {
        return name();
    }
}
