package org.clustersim.study.whatif;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

/** A baseline and a faulty variant side by side: the figures, the links that changed, the slowdown. */
public final class Comparison {
    private Comparison() {
    }

    /**
     * One link's traffic in the baseline and the variant.
     *
     * @param link           link name
     * @param baselineBytes  bytes it carried in the baseline
     * @param variantBytes   bytes it carried in the variant
     * @param baselineBusyNs time it carried traffic in the baseline
     * @param variantBusyNs  time it carried traffic in the variant
     */
    public record LinkChange(String link, long baselineBytes, long variantBytes, long baselineBusyNs,
                             long variantBusyNs) {
    }

    /** The links whose busy time (re-routed traffic, or the same bytes at a lower rate) changed most. */
    public static List<LinkChange> linkChanges(Topology topology, Outcome base, Outcome var, int limit) {
        List<LinkChange> all = new ArrayList<>();
        for (Link l : topology.links()) {
            int i = l.id();
            if (base.linkBytes()[i] != var.linkBytes()[i] || base.linkBusyNs()[i] != var.linkBusyNs()[i]) {
                all.add(new LinkChange(l.name(), base.linkBytes()[i], var.linkBytes()[i], base.linkBusyNs()[i],
                        var.linkBusyNs()[i]));
            }
        }
        all.sort(Comparator.comparingLong((LinkChange c) -> -Math.abs(c.variantBusyNs - c.baselineBusyNs))
                .thenComparingLong(c -> -Math.abs(c.variantBytes - c.baselineBytes)).thenComparing(LinkChange::link));
        return all.subList(0, Math.min(limit, all.size()));
    }

    /** An outcome's figures for JSON. */
    public static Map<String, Object> summary(Outcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("label", o.label());
        if (!o.linkClass().isEmpty()) {
            m.put("linkClass", o.linkClass());
        }
        if (o.failed()) {
            m.put("failure", o.failure());
            return m;
        }
        m.put("stepTimeSeconds", o.stepTimeNs() / 1e9);
        m.put("mfu", o.mfu());
        m.put("idleFraction", o.idleFraction());
        m.put("pipelineBubbleFraction", o.pipelineBubbleFraction());
        m.put("exposedCommFraction", o.exposedCommFraction());
        m.put("otherWaitFraction", o.otherWaitFraction());
        Map<String, Double> kinds = new TreeMap<>();
        o.exposedByKindNs().forEach((k, v) -> kinds.put(k, v / 1e9));
        m.put("exposedCommSecondsByKind", kinds);
        return m;
    }

    private static void percentRow(PrintWriter out, String what, double base, double variant) {
        out.printf(Locale.ROOT, "%-26s %13.2f%% %13.2f%% %+11.2f%n", what, 100 * base, 100 * variant,
                100 * (variant - base));
    }

    /** The side-by-side report. */
    public static void print(PrintWriter out, Scenario s, Outcome b, Outcome v, List<LinkChange> changes,
                                        Path baseTrace, Path variantTrace) {
        out.printf(Locale.ROOT, "scenario   %s (%s)%n", s.name(), s.source());
        out.printf(Locale.ROOT, "variant    %s%n%n", v.label());
        out.printf(Locale.ROOT, "%-26s %14s %14s %12s%n", "", "baseline", "variant", "change");
        out.printf(Locale.ROOT, "%-26s %14s %14s %11.4fx%n", "step time", seconds(b.stepTimeNs()),
                seconds(v.stepTimeNs()), v.slowdown(b));
        out.printf(Locale.ROOT, "%-26s %13.1f%% %13.1f%% %+11.1f%n", "MFU", 100 * b.mfu(), 100 * v.mfu(),
                100 * (v.mfu() - b.mfu()));
        // the idle time and its three parts (docs/metrics.md, "Idle time")
        percentRow(out, "compute idle", b.idleFraction(), v.idleFraction());
        percentRow(out, "  pipeline bubble", b.pipelineBubbleFraction(), v.pipelineBubbleFraction());
        percentRow(out, "  exposed communication", b.exposedCommFraction(), v.exposedCommFraction());
        TreeSet<String> kinds = new TreeSet<>(b.exposedByKindNs().keySet());
        kinds.addAll(v.exposedByKindNs().keySet());
        for (String k : kinds) {
            long bk = b.exposedByKindNs().getOrDefault(k, 0L);
            long vk = v.exposedByKindNs().getOrDefault(k, 0L);
            out.printf(Locale.ROOT, "    %-22s %14s %14s %+10.3f ms%n", k, seconds(bk), seconds(vk),
                    (vk - bk) / 1e6);
        }
        percentRow(out, "  other waits", b.otherWaitFraction(), v.otherWaitFraction());
        out.println();
        if (changes.isEmpty()) {
            out.println("no link's traffic changed");
        } else {
            out.println("links whose traffic changed most (busy time and bytes, baseline -> variant)");
            for (LinkChange c : changes) {
                out.printf(Locale.ROOT, "  %-44s %10.3f ms -> %10.3f ms %9.2f GiB -> %9.2f GiB%n", c.link(),
                        c.baselineBusyNs() / 1e6, c.variantBusyNs() / 1e6, c.baselineBytes() / GIB,
                        c.variantBytes() / GIB);
            }
        }
        out.println();
        out.printf(Locale.ROOT, "slowdown   %.4fx (%+.2f%% step time)%n", v.slowdown(b), 100 * (v.slowdown(b) - 1));
        if (baseTrace != null) {
            out.printf(Locale.ROOT, "traces     %s, %s%n", baseTrace, variantTrace);
        }
        out.flush();
    }

    private static final double GIB = 1024.0 * 1024 * 1024;

    public static String seconds(long ns) {
        return String.format(Locale.ROOT, "%.4f s", ns / 1e9);
    }
}
