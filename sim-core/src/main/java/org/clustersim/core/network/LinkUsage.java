package org.clustersim.core.network;

import org.clustersim.core.engine.Counters;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

/**
 * What each link carried during a run: bytes, the time it carried anything (busy time), and
 * a throughput counter track (GB/s) for links that carried traffic (unless no counters were
 * given: large runs can switch the tracks off, since every rate change is a sample).
 */
public final class LinkUsage {
    /** What the name of each link's throughput track starts with (the link's name follows). */
    public static final String TRACK_PREFIX = "link ";

    private final Topology topology;
    private final Counters counters;
    private final long[] bytes;
    private final long[] busyNs;
    private final int[] track;
    private final boolean throughputTracks;

    LinkUsage(Topology topology, Counters counters) {
        this.topology = topology;
        this.counters = counters;
        this.throughputTracks = counters != null;
        int n = topology.links().size();
        bytes = new long[n];
        busyNs = new long[n];
        track = new int[n];
        java.util.Arrays.fill(track, -1);
    }

    void carried(Link l, long b, long ns) {
        bytes[l.id()] += b;
        busyNs[l.id()] += ns;
    }

    /** Adds {@code b} bytes to link {@code linkId}'s total. */
    void carried(int linkId, long b) {
        bytes[linkId] += b;
    }

    /** Adds {@code ns} to link {@code linkId}'s busy time. */
    void busy(int linkId, long ns) {
        busyNs[linkId] += ns;
    }

    /** Whether rate changes are recorded (a track per link); when not, callers may skip them. */
    boolean tracksRates() {
        return throughputTracks;
    }

    /** Records a change of the link's throughput, in bytes per second, from {@code at} on. */
    void rateChange(Link l, long at, double bytesPerS) {
        if (!throughputTracks) {
            return;
        }
        int t = track[l.id()];
        if (t < 0) {
            // one track per link: its name is made when a trace or report reads it
            t = counters.trackNamedLater(() -> TRACK_PREFIX + l.name(), "GB/s");
            track[l.id()] = t;
        }
        counters.add(t, at, bytesPerS / 1e9);
    }

    /** Bytes link {@code linkId} carried. */
    public long bytes(int linkId) {
        return bytes[linkId];
    }

    /** Time link {@code linkId} carried at least one flow, ns. */
    public long busyNs(int linkId) {
        return busyNs[linkId];
    }

    public Topology topology() {
        return topology;
    }
}
