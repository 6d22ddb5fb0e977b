package org.clustersim.study.scenario;

import org.clustersim.core.input.SourceLocation;
import java.util.Locale;

/**
 * One fault of a scenario or a what-if flag: a link, a switch or a NIC going down or
 * degraded (every link of a switch or NIC at once), or a GPU slowed to a fraction of its
 * speed, from {@code atNs} for {@code durationNs} (0: for the rest of the run). Resolved
 * against the topology by {@link FaultEvents}.
 *
 * @param target         what fails
 * @param name           link name ({@code a->b}, or {@code a<->b} for both directions of a
 *                       cable), switch or NIC vertex name, or GPU name
 * @param atNs           when it starts
 * @param durationNs     how long it lasts, 0 for the rest of the run
 * @param capacityFactor links: remaining fraction of capacity (0 down)
 * @param extraLatencyNs links: latency added
 * @param speed          GPUs: relative compute speed (0.8 needs 1.25x as long)
 * @param location       where it is written ({@link SourceLocation#NONE} for a command-line flag)
 * @param path           field path or flag, for error messages
 */
public record Fault(Target target, String name, long atNs, long durationNs, double capacityFactor,
                    long extraLatencyNs, double speed, SourceLocation location, String path)
        implements java.io.Serializable {

    /** What a fault hits. */
    public enum Target {
        LINK, SWITCH, NIC, GPU;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A link (or cable, switch or NIC) down from the start, named on the command line. */
    public static Fault down(Target target, String name, String flag) {
        return new Fault(target, name, 0, 0, 0, 0, 1, SourceLocation.NONE, flag);
    }

    /** A link (or cable, switch or NIC) at a fraction of its capacity from the start. */
    public static Fault degraded(Target target, String name, double fraction, String flag) {
        return new Fault(target, name, 0, 0, fraction, 0, 1, SourceLocation.NONE, flag);
    }

    /** A GPU slowed to {@code speed} from the start. */
    public static Fault slow(String gpu, double speed, String flag) {
        return new Fault(Target.GPU, gpu, 0, 0, 1, 0, speed, SourceLocation.NONE, flag);
    }

    /**
     * Warnings for faults that start after the simulated run ended at {@code endNs} and so changed
     * nothing, e.g. {@code fault at 100 s (faults[0], line 12) starts after the step ended at 153 ms}.
     */
    public static java.util.List<String> lateWarnings(java.util.List<Fault> faults, long endNs) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (Fault f : faults) {
            if (f.atNs() >= endNs) {
                out.add("fault at " + clock(f.atNs()) + " (" + f.path() + (f.location().line() > 0 ? ", line "
                        + f.location().line() : "") + ") starts after the step ended at " + clock(endNs)
                        + "; it had no effect");
            }
        }
        return out;
    }

    /** Nanoseconds in the largest unit that keeps a number of at least 1: 153 ms, 100 s. */
    static String clock(long ns) {
        if (ns >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.4g s", ns / 1e9);
        }
        if (ns >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.4g ms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.4g us", ns / 1e3);
    }

    /** Trace markers: the fault starting, and ending if it does. */
    public java.util.List<org.clustersim.core.trace.ChromeTraceWriter.Marker> markers() {
        var start = new org.clustersim.core.trace.ChromeTraceWriter.Marker(atNs, "fault: " + describe());
        if (durationNs == 0) {
            return java.util.List.of(start);
        }
        return java.util.List.of(start, new org.clustersim.core.trace.ChromeTraceWriter.Marker(atNs + durationNs,
                "recovered: " + target.id() + " " + name));
    }

    /** A short human description, e.g. {@code link a->b down} or {@code gpu node0.gpu3 at 0.80x}. */
    public String describe() {
        String what = target == Target.GPU ? String.format(Locale.ROOT, "gpu %s at %.2fx speed", name, speed)
                : target.id() + " " + name + (capacityFactor == 0 ? " down"
                        : String.format(Locale.ROOT, " at %.0f%%", 100 * capacityFactor))
                + (extraLatencyNs > 0 ? String.format(Locale.ROOT, " +%.1f us", extraLatencyNs / 1e3) : "");
        return what + (atNs > 0 ? String.format(Locale.ROOT, " from %.3f ms", atNs / 1e6) : "")
                + (durationNs > 0 ? String.format(Locale.ROOT, " for %.3f ms", durationNs / 1e6) : "");
    }
}
