package org.clustersim.cli.output;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

import org.clustersim.cli.scenario.Scenario;

/** Renders a {@link RunSummary} as the short human-readable report {@code clustersim run} prints. */
public final class SummaryText {
    private SummaryText() {
    }

    public static void print(PrintWriter out, Scenario s, RunSummary r, Path trace, Path summaryJson,
                             double wallSeconds) {
        var c = s.cluster();
        var m = s.model();
        var p = s.parallelism();
        out.printf(Locale.ROOT, "scenario   %s (%s)%n", s.name(), s.source());
        out.printf(Locale.ROOT, "cluster    %s: %s%n", c.name(), c.describe());
        out.printf(Locale.ROOT, "model      %s: %d layers, hidden %d, %d heads, ffn %d, vocab %d%n", m.name(),
                m.layers(), m.hidden(), m.heads(), m.ffn(), m.vocab());
        out.printf(Locale.ROOT, "layout     pp=%d tp=%d dp=%d, schedule %s%s, %d microbatches of %d x %d tokens%n",
                p.pp(), p.tp(), p.dp(), s.schedule().id(), p.vp() > 1 ? " (" + p.vp() + " chunks per rank)" : "",
                s.microbatches(), s.training().microBatch(), s.training().seqLen());
        out.println();
        out.printf(Locale.ROOT, "step time        %s%n", duration(r.stepTimeNs()));
        out.printf(Locale.ROOT, "throughput       %,.0f tokens/s, %.1f TFLOP/s per GPU executed%n",
                r.tokensPerSecond(), r.tflopsPerGpu());
        out.printf(Locale.ROOT, "bubble (mean)    %.2f%%%n", 100 * r.bubbleFraction());
        out.printf(Locale.ROOT, "weights / rank   %.2g model-copy share%s%n", r.weightCopiesPerRank(),
                r.weightCopiesPerRank() > 1 ? "s" : "");
        out.println();
        out.printf(Locale.ROOT, "%-5s %-14s %14s %14s %8s %12s%n", "rank", "device", "busy", "idle", "bubble",
                "peak acts");
        for (RunSummary.Device d : r.devices()) {
            out.printf(Locale.ROOT, "%-5d %-14s %14s %14s %7.2f%% %12.2f%n", d.pipelineRank(), d.name(),
                    duration(d.computeBusyNs()), duration(d.computeIdleNs()), 100 * d.bubbleFraction(),
                    d.peakActivations());
        }
        if (!r.links().isEmpty()) {
            out.println();
            out.printf(Locale.ROOT, "busiest links (%s network model)%n", s.fidelity().name().toLowerCase(Locale.ROOT));
            for (int i = 0; i < Math.min(5, r.links().size()); i++) {
                RunSummary.LinkTraffic l = r.links().get(i);
                out.printf(Locale.ROOT, "  %-40s %12s busy %s (%.1f%% of the step)%n", l.link(), bytes(l.bytes()),
                        duration(l.busyNs()), 100 * l.busyFraction());
            }
        }
        out.println();
        out.printf(Locale.ROOT, "simulated %,d tasks with %,d events in %.2f s%n", r.tasks(), r.events(), wallSeconds);
        out.printf(Locale.ROOT, "trace      %s  (open in https://ui.perfetto.dev or chrome://tracing)%n", trace);
        if (summaryJson != null) {
            out.printf(Locale.ROOT, "summary    %s%n", summaryJson);
        }
        out.flush();
    }

    /** Bytes in the most readable binary unit. */
    static String bytes(long b) {
        if (b >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", b / (double) (1L << 30));
        }
        if (b >= 1L << 20) {
            return String.format(Locale.ROOT, "%.2f MiB", b / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%d B", b);
    }

    /** A duration in the most readable unit: s, ms or us. */
    static String duration(long ns) {
        if (ns >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.4f s", ns / 1e9);
        }
        if (ns >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.3f us", ns / 1e3);
    }
}
