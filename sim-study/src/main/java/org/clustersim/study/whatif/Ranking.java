package org.clustersim.study.whatif;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.study.scenario.Scenario;

/** A sweep's variants ranked by the slowdown they cause, with a summary per link class. */
public final class Ranking {
    private Ranking() {
    }

    /**
     * One link class's variants.
     *
     * @param variants      how many
     * @param cutApart      how many cut the cluster apart
     * @param worstSlowdown the worst slowdown of the others (1 if none slowed)
     * @param meanSlowdown  their mean slowdown, null when every variant cut the cluster
     */
    public record ClassSummary(int variants, int cutApart, double worstSlowdown, Double meanSlowdown) {
    }

    /** Per link class ("gpu" for stragglers): variants, cuts, the worst and the mean slowdown of the rest. */
    public static Map<String, ClassSummary> byClass(Outcome base, List<Outcome> outcomes) {
        Map<String, List<Outcome>> groups = new TreeMap<>();
        for (Outcome o : outcomes) {
            groups.computeIfAbsent(o.linkClass().isEmpty() ? "gpu" : o.linkClass(), k -> new ArrayList<>()).add(o);
        }
        Map<String, ClassSummary> out = new TreeMap<>();
        groups.forEach((k, list) -> {
            int cuts = 0;
            double worst = 1;
            double sum = 0;
            int n = 0;
            for (Outcome o : list) {
                if (o.failed()) {
                    cuts++;
                } else {
                    worst = Math.max(worst, o.slowdown(base));
                    sum += o.slowdown(base);
                    n++;
                }
            }
            out.put(k, new ClassSummary(list.size(), cuts, worst, n == 0 ? null : sum / n));
        });
        return out;
    }

    /** One row per variant, worst first. */
    public static String csv(Outcome base, List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder("rank,variant,class,step_time_s,slowdown,mfu,exposed_comm_fraction,"
                + "failure\n");
        int rank = 1;
        for (Outcome o : outcomes) {
            sb.append(rank++).append(',').append(o.label().replace(',', ';')).append(',').append(o.linkClass())
                    .append(',');
            if (o.failed()) {
                sb.append(",,,,").append('"').append(o.failure().replace('"', '\'')).append('"');
            } else {
                sb.append(String.format(Locale.ROOT, "%.9f,%.6f,%.6f,%.6f,", o.stepTimeNs() / 1e9, o.slowdown(base),
                        o.mfu(), o.exposedCommFraction()));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * The ranking report.
     *
     * @param sweep      the --sweep value
     * @param kind       links or stragglers
     * @param sample     cables sampled (0: all)
     * @param seed       the sample's seed
     * @param slowFactor the stragglers' speed
     * @param top        rows to print
     */
    public static void print(PrintWriter out, Scenario s, String sweep, String kind, int sample, long seed,
                             double slowFactor, int top, Outcome base, List<Outcome> outcomes) {
        out.printf(Locale.ROOT, "scenario   %s (%s)%n", s.name(), s.source());
        out.printf(Locale.ROOT, "sweep      %s: %d variants%s, baseline step %s%n%n", sweep, outcomes.size(),
                sample > 0 && kind.equals("links") ? " (sample of " + sample + ", seed " + seed + ")" : "",
                Comparison.seconds(base.stepTimeNs()));
        // the idle column: how much longer the simulated GPUs stood idle, on average, in points of
        // the step; a straggler stalls its whole replica, so it rises on every GPU but the slow one
        out.printf(Locale.ROOT, "%-5s %-52s %-12s %12s %10s %12s%n", "rank", kind.equals("links") ? "cable failed"
                : "straggler (speed " + slowFactor + ")", "class", "step time", "slowdown", "idle +pts");
        for (int i = 0; i < Math.min(top, outcomes.size()); i++) {
            Outcome o = outcomes.get(i);
            out.printf(Locale.ROOT, "%-5d %-52s %-12s %12s %10s %12s%n", i + 1, o.label(), o.linkClass(),
                    o.failed() ? "cut apart" : Comparison.seconds(o.stepTimeNs()),
                    o.failed() ? "-" : String.format(Locale.ROOT, "%.4fx", o.slowdown(base)),
                    o.failed() ? "-" : String.format(Locale.ROOT, "%+.2f", 100 * (o.idleFraction()
                            - base.idleFraction())));
        }
        if (outcomes.size() > top) {
            out.printf(Locale.ROOT, "... %d more (--top, --csv, --json for all)%n", outcomes.size() - top);
        }
        if (kind.equals("links")) {
            out.println();
            out.printf(Locale.ROOT, "%-14s %9s %10s %14s %14s%n", "class", "cables", "cut apart", "worst slowdown",
                    "mean slowdown");
            byClass(base, outcomes).forEach((k, c) -> out.printf(Locale.ROOT, "%-14s %9d %10d %13.4fx %14s%n", k,
                    c.variants(), c.cutApart(), c.worstSlowdown(), c.meanSlowdown() == null ? "-"
                            : String.format(Locale.ROOT, "%.4fx", c.meanSlowdown())));
        }
        Outcome first = outcomes.get(0);
        if (first.failed()) {
            out.printf(Locale.ROOT, "%nfirst cut: %s%n", first.failure());
        }
        out.flush();
    }
}
