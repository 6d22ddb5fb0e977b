package org.clustersim.study.plan;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A finished search as people and programs read it: the printed ranking with each candidate's
 * breakdown, the Pareto front of throughput against memory headroom, and the same as CSV (one
 * row per candidate, whatever became of it) and JSON. Everything here is a function of the
 * search's result, so outputs are byte-identical for identical inputs.
 *
 * <p>Throughput is tokens per second per GPU; with a price per GPU-hour the ranking also shows
 * dollars per million tokens (the same order: the GPU count is fixed).
 */
public final class PlanReport {
    private final PlanSearch.Result result;
    private final double pricePerGpuHour;

    /** @param pricePerGpuHour dollars per GPU-hour, 0 for none */
    public PlanReport(PlanSearch.Result result, double pricePerGpuHour) {
        this.result = result;
        this.pricePerGpuHour = pricePerGpuHour;
    }

    /** Tokens per second per GPU of a simulated candidate. */
    public double tokensPerGpuSecond(Evaluation e) {
        return result.frame().tokensPerStep() / (e.stepTimeNs() / 1e9) / result.frame().gpus();
    }

    /** Dollars per million tokens, or 0 without a price. */
    public double dollarsPerMillionTokens(Evaluation e) {
        return pricePerGpuHour <= 0 ? 0
                : pricePerGpuHour * result.frame().gpus() * (e.stepTimeNs() / 1e9) / 3600
                / result.frame().tokensPerStep() * 1e6;
    }

    /** Memory headroom of a simulated candidate: HBM minus its simulated peak, bytes. */
    public long headroom(Evaluation e) {
        return result.frame().hbmBytes() - e.peakMemoryBytes();
    }

    /**
     * The candidates no other ranked candidate beats on both throughput and memory headroom, by
     * throughput (fastest first).
     */
    public List<Evaluation> pareto() {
        List<Evaluation> front = new ArrayList<>();
        long most = Long.MIN_VALUE;
        for (Evaluation e : result.ranking()) { // fastest first, ties by index
            if (headroom(e) > most) {
                front.add(e);
                most = headroom(e);
            }
        }
        return front;
    }

    /** The ranked winner. */
    public Evaluation winner() {
        return result.ranking().get(0);
    }

    /** The printed report. */
    public void print(PrintWriter out, int top, String winnerFile) {
        PlanSearch.Frame f = result.frame();
        out.printf(Locale.ROOT, "plan: %s on %s (%d GPUs), global batch %d x %d tokens%n",
                modelName(), f.clusterName(), f.gpus(), f.globalBatch(), f.seqLen());
        int dropped = result.dropped().values().stream().mapToInt(Integer::intValue).sum();
        // formed = screened; formed + left out = the combinations of the values given
        out.printf(Locale.ROOT, "layouts     %d formed and screened%s%n", result.layouts().size(),
                dropped == 0 ? "" : ", " + dropped + " left out before screening (" + tally(result.dropped()) + "); "
                        + (result.layouts().size() + dropped) + " combinations in all");
        long invalid = result.count(Screening.Verdict.INVALID);
        long oom = result.count(Screening.Verdict.OUT_OF_MEMORY);
        long fit = result.count(Screening.Verdict.VALID);
        out.printf(Locale.ROOT, "screening   %d rejected by the layout rules%s%n", invalid,
                invalid == 0 ? "" : " (" + tally(result.reasons(Screening.Verdict.INVALID)) + ")");
        out.printf(Locale.ROOT, "            %d exceed %.0f GB of HBM by the memory model%s%n", oom, f.hbmBytes() / 1e9,
                oom == 0 ? "" : " (" + oomSummary() + ")");
        out.printf(Locale.ROOT, "            %d fit and were estimated (each action's chain, the schedule walked, "
                + "the data-parallel end in closed form)%n", fit);
        long oomAfter = result.evaluations().values().stream().filter(Evaluation::oom).count();
        long rejected = result.evaluations().values().stream().filter(e -> !e.rejected().isEmpty()).count();
        out.printf(Locale.ROOT, "search      the best %d by estimate simulated in %d wave%s, %d not simulated%s%s%n",
                result.evaluations().size(), result.waves(), result.waves() == 1 ? "" : "s", result.skipped(),
                oomAfter == 0 ? "" : "; " + oomAfter + " simulated over HBM, not ranked",
                rejected == 0 ? "" : "; " + rejected + " rejected by the scenario reader");
        if (!result.ranking().isEmpty()) {
            out.printf(Locale.ROOT, "            estimate against simulation over the simulated: %s%n", agreement());
        }
        if (result.ranking().isEmpty()) {
            out.println();
            out.println("no candidate fits in memory: shard more (tp, pp, zero), recompute, or allow more layouts");
            out.flush();
            return;
        }
        out.println();
        boolean price = pricePerGpuHour > 0;
        // idle time split as docs/metrics.md defines it: pipeline bubble, exposed communication, other waits
        out.printf(Locale.ROOT, "%4s  %-56s %8s %9s%s %6s %7s %8s  %-26s %6s %7s %8s%n", "rank", "layout", "step s",
                "tok/s/GPU", price ? String.format(Locale.ROOT, " %8s", "$/Mtok") : "", "MFU", "bubble", "exposed",
                "exposed ms by kind", "other", "interf.", "peak GB");
        List<Evaluation> ranking = result.ranking();
        for (int i = 0; i < Math.min(top, ranking.size()); i++) {
            Evaluation e = ranking.get(i);
            out.printf(Locale.ROOT, "%4d  %-56s %8.3f %9.0f%s %5.1f%% %6.1f%% %7.1f%%  %-26s %5.1f%% %6.1f%% %8.1f%n",
                    i + 1, layout(e).label(), e.stepTimeNs() / 1e9, tokensPerGpuSecond(e),
                    price ? String.format(Locale.ROOT, " %8.3f", dollarsPerMillionTokens(e)) : "", 100 * e.mfu(),
                    100 * e.pipelineBubbleFraction(), 100 * e.exposedCommFraction(), byKind(e),
                    100 * e.otherWaitFraction(), 100 * e.interferenceFraction(), e.peakMemoryBytes() / 1e9);
        }
        out.println();
        out.println("Pareto front, throughput against memory headroom (simulated candidates):");
        for (Evaluation e : pareto()) {
            out.printf(Locale.ROOT, "      %-56s %9.0f tok/s/GPU  %6.1f GB free%n", layout(e).label(),
                    tokensPerGpuSecond(e), headroom(e) / 1e9);
        }
        out.println();
        out.printf(Locale.ROOT, "winner      %s: %s%n", layout(winner()).label(), winnerFile);
        out.flush();
    }

    /** The simulated candidates' estimate errors: median and largest, and the estimate's rank of the winner. */
    private String agreement() {
        List<Double> errors = new ArrayList<>();
        for (Evaluation e : result.ranking()) {
            long est = result.screenings().get(e.index()).estimateNs();
            errors.add(Math.abs(est - e.stepTimeNs()) / (double) e.stepTimeNs());
        }
        java.util.Collections.sort(errors);
        int winnerRank = 1;
        long winnerEstimate = result.screenings().get(winner().index()).estimateNs();
        for (Screening s : result.screenings()) {
            if (s.verdict() == Screening.Verdict.VALID && (s.estimateNs() < winnerEstimate
                    || s.estimateNs() == winnerEstimate && s.index() < winner().index())) {
                winnerRank++;
            }
        }
        return String.format(Locale.ROOT, "median error %.1f%%, largest %.1f%%; the winner was %d%s by estimate",
                100 * errors.get(errors.size() / 2), 100 * errors.get(errors.size() - 1), winnerRank,
                winnerRank % 10 == 1 && winnerRank % 100 != 11 ? "st" : winnerRank % 10 == 2 && winnerRank % 100 != 12
                        ? "nd" : winnerRank % 10 == 3 && winnerRank % 100 != 13 ? "rd" : "th");
    }

    private String oomSummary() {
        long worst = 0;
        long least = Long.MAX_VALUE;
        for (Screening s : result.screenings()) {
            if (s.verdict() == Screening.Verdict.OUT_OF_MEMORY) {
                worst = Math.max(worst, s.memory().peakBytes());
                least = Math.min(least, s.memory().peakBytes());
            }
        }
        return peaks(least, worst);
    }

    /** {@code predicted peaks 90 to 120 GB}, or one value where both print alike ({@code predicted peak 97 GB}). */
    static String peaks(long leastBytes, long worstBytes) {
        String least = String.format(Locale.ROOT, "%.0f", leastBytes / 1e9);
        String worst = String.format(Locale.ROOT, "%.0f", worstBytes / 1e9);
        return least.equals(worst) ? "predicted peak " + worst + " GB"
                : "predicted peaks " + least + " to " + worst + " GB";
    }

    private String modelName() {
        return result.frame().modelName();
    }

    private Layout layout(Evaluation e) {
        return result.layouts().get(e.index());
    }

    private static String byKind(Evaluation e) {
        StringBuilder b = new StringBuilder();
        e.exposedByKindNs().forEach((k, v) -> {
            if (v > 0) {
                b.append(b.length() == 0 ? "" : " ").append(k.replace("-comm", "").replace("-p2p", ""))
                        .append(' ').append(Math.round(v / 1e6));
            }
        });
        return b.length() == 0 ? "-" : b.toString();
    }

    private static String tally(Map<String, Integer> counts) {
        List<String> parts = new ArrayList<>();
        counts.forEach((k, v) -> parts.add(k + ": " + v));
        return String.join("; ", parts);
    }

    /** One CSV row per candidate in enumeration order: its layout, fate and figures. */
    public String csv() {
        StringBuilder b = new StringBuilder("index,tp,pp,cp,ep,vp,dp,microBatch,recompute,zero,schedule,status,reason,"
                + "predictedPeakGB,estimateSeconds,stepSeconds,rank,tokensPerGpuSecond,dollarsPerMillionTokens,mfu,"
                + "pipelineBubbleFraction,exposedCommFraction,otherWaitFraction,interferenceFraction,peakMemoryGB,etp,recomputeModules,zero3Impl,"
                + "cpVariant,tpCommOverlap,overlapParamGather,gradBucketMB,cpuOffloadLayers\n");
        Map<Integer, Integer> rank = new LinkedHashMap<>();
        for (int i = 0; i < result.ranking().size(); i++) {
            rank.put(result.ranking().get(i).index(), i + 1);
        }
        for (int index = 0; index < result.layouts().size(); index++) {
            Layout l = result.layouts().get(index);
            Screening s = result.screenings().get(index);
            Evaluation e = result.evaluations().get(index);
            boolean simulated = e != null && e.rejected().isEmpty();
            b.append(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%s,%s,%s,", index, l.tp(), l.pp(),
                    l.cp(), l.ep(), l.vp(), l.dp(), l.mb(), l.recompute(), l.zero(), l.schedule(), status(s, e),
                    quote(e != null && !simulated ? e.rejected() : s.reason())));
            b.append(s.memory() == null ? "" : String.format(Locale.ROOT, "%.3f", s.memory().peakBytes() / 1e9))
                    .append(',');
            b.append(s.verdict() == Screening.Verdict.VALID ? String.format(Locale.ROOT, "%.6f", s.estimateNs() / 1e9) : "")
                    .append(',');
            if (!simulated) {
                b.append(",,,,,,,,,");
            } else {
                b.append(String.format(Locale.ROOT, "%.6f,%s,%.1f,%s,%.5f,%.5f,%.5f,%.5f,%.5f,%.3f", e.stepTimeNs() / 1e9,
                        rank.containsKey(index) ? rank.get(index).toString() : "", tokensPerGpuSecond(e),
                        pricePerGpuHour > 0 ? String.format(Locale.ROOT, "%.5f", dollarsPerMillionTokens(e)) : "",
                        e.mfu(), e.pipelineBubbleFraction(), e.exposedCommFraction(), e.otherWaitFraction(),
                        e.interferenceFraction(),
                        e.peakMemoryBytes() / 1e9));
            }
            // the options past the schedule, empty where the layout leaves them to the base
            b.append(String.format(Locale.ROOT, ",%s,%s,%s,%s,%s,%s,%s,%s%n", l.etp() > 0 ? l.etp() : "",
                    l.recomputeModules(), l.zero3Impl(), l.cpVariant(), l.tpOverlap() ? "true" : "",
                    l.overlapParamGather() ? "true" : "", l.bucketMB() > 0 ? l.bucketMB() : "",
                    l.offloadLayers() > 0 ? l.offloadLayers() : ""));
        }
        return b.toString();
    }

    private static String status(Screening s, Evaluation e) {
        return switch (s.verdict()) {
            case INVALID -> "invalid";
            case OUT_OF_MEMORY -> "out-of-memory";
            case VALID -> e == null ? "estimated" : !e.rejected().isEmpty() ? "rejected-by-reader"
                    : e.oom() ? "simulated-out-of-memory" : "simulated";
        };
    }

    private static String quote(String text) {
        if (text.isEmpty()) {
            return "";
        }
        return '"' + text.replace("\"", "\"\"").replace('\n', ' ') + '"';
    }

    /** The JSON document: inputs, counts, the ranking with breakdowns, the Pareto front and the winner. */
    public Map<String, Object> json(String winnerFile) {
        PlanSearch.Frame f = result.frame();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("model", modelName());
        doc.put("cluster", f.clusterName());
        doc.put("gpus", f.gpus());
        doc.put("globalBatch", f.globalBatch());
        doc.put("seqLen", f.seqLen());
        doc.put("pricePerGpuHour", pricePerGpuHour);
        doc.put("layouts", result.layouts().size());
        doc.put("leftOut", result.dropped());
        doc.put("invalid", result.reasons(Screening.Verdict.INVALID));
        doc.put("outOfMemory", result.count(Screening.Verdict.OUT_OF_MEMORY));
        doc.put("fit", result.count(Screening.Verdict.VALID));
        doc.put("simulated", result.evaluations().size());
        doc.put("skipped", result.skipped());
        doc.put("waves", result.waves());
        List<Map<String, Object>> ranking = new ArrayList<>();
        for (Evaluation e : result.ranking()) {
            ranking.add(row(e));
        }
        doc.put("ranking", ranking);
        List<Map<String, Object>> front = new ArrayList<>();
        for (Evaluation e : pareto()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", e.index());
            m.put("layout", layout(e).label());
            m.put("tokensPerGpuSecond", tokensPerGpuSecond(e));
            m.put("headroomBytes", headroom(e));
            front.add(m);
        }
        doc.put("pareto", front);
        if (!result.ranking().isEmpty()) {
            Map<String, Object> w = row(winner());
            w.put("scenarioFile", winnerFile);
            doc.put("winner", w);
        }
        return doc;
    }

    private Map<String, Object> row(Evaluation e) {
        Map<String, Object> m = new LinkedHashMap<>();
        Layout l = layout(e);
        m.put("index", e.index());
        m.put("layout", l);
        m.put("estimateSeconds", result.screenings().get(e.index()).estimateNs() / 1e9);
        m.put("stepTimeNs", e.stepTimeNs());
        m.put("stepTimeSeconds", e.stepTimeNs() / 1e9);
        m.put("tokensPerGpuSecond", tokensPerGpuSecond(e));
        if (pricePerGpuHour > 0) {
            m.put("dollarsPerMillionTokens", dollarsPerMillionTokens(e));
        }
        m.put("mfu", e.mfu());
        m.put("pipelineBubbleFraction", e.pipelineBubbleFraction());
        m.put("exposedCommFraction", e.exposedCommFraction());
        m.put("otherWaitFraction", e.otherWaitFraction());
        m.put("exposedByKindNs", e.exposedByKindNs());
        m.put("interferenceFraction", e.interferenceFraction());
        m.put("peakMemoryBytes", e.peakMemoryBytes());
        m.put("predictedPeakMemoryBytes", result.screenings().get(e.index()).memory().peakBytes());
        m.put("headroomBytes", headroom(e));
        return m;
    }
}
