package org.clustersim.cli.output;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.clustersim.core.trace.TraceFormat;
import org.clustersim.study.scenario.Scenario;

/** Renders a {@link RunSummary} as the short human-readable report {@code clustersim run} prints. */
public final class SummaryText {
    /** The traffic category of the cross-slice gradient reductions. */
    private static final String DCN = org.clustersim.core.engine.TaskTag.Traffic.DCN_GRADIENT_REDUCE.category();

    private SummaryText() {
    }

    /**
     * Prints the summary of a run; {@code trace} (null: not written) was written in
     * {@code traceFormat}, whose viewers the trace line names.
     */
    public static void print(PrintWriter out, Scenario s, RunSummary r, Path trace, TraceFormat traceFormat,
                             Path summaryJson, double wallSeconds) {
        var c = s.cluster();
        DeviceWords words = DeviceWords.of(c);
        var m = s.model();
        var p = s.parallelism();
        out.printf(Locale.ROOT, "scenario   %s (%s)%n", s.name(), s.source());
        out.printf(Locale.ROOT, "cluster    %s: %s%n", c.name(), c.describe());
        out.printf(Locale.ROOT, "model      %s: %d layers%s, hidden %d, %d heads (%d KV; %s), ffn %d, vocab %d%s%n",
                m.name(), m.layers(), m.parallelBlocks() ? " (attention and MLP in parallel)" : "", m.hidden(),
                m.heads(), m.kvHeads(), m.attentionShape().describe(), m.ffn(),
                m.vocab(), m.experts() == null ? ""
                        : String.format(Locale.ROOT, "; %d experts of %d, top %d%s, capacity %.2f, %.1f B of %.1f B "
                                + "parameters active", m.experts().count(), m.experts().ffn(), m.experts().topK(),
                                m.experts().shared() > 0 ? " + " + m.experts().shared() + " shared" : "",
                                m.experts().capacityFactor(), m.activeParameters() / 1e9, m.parameters() / 1e9));
        out.printf(Locale.ROOT, "layout     tp=%d%s pp=%d dp=%d%s%s%s%s%s, schedule %s%s, %d microbatches of %d x %d "
                + "tokens, recompute %s%n", p.layout().mesh().tp(), p.layout().mesh().cp() > 1 ? " cp=" + p.layout().mesh().cp() + (p.layout().cpKind()
                        == org.clustersim.strategies.training.ContextParallel.RING ? " (ring)" : "") : "", p.layout().mesh().pp(), p.layout().mesh().dp(),
                (p.layout().mesh().ep() > 1 ? " ep=" + p.layout().mesh().ep() : "") + (p.layout().mesh().etp() != p.layout().mesh().tp() ? " etp=" + p.layout().mesh().etp() : ""), p.layout().zero().stage() > 0 ? " zero=" + p.layout().zero().stage() : "",
                p.layout().zero().shardGroup() > 0 ? " (hybrid, shards of " + p.layout().zero().shardGroup() + ")" : "",
                p.layout().sequenceParallel() ? " +sp" : "",
                p.layout().mesh().order().equals(org.clustersim.strategies.training.Mesh.DEFAULT_ORDER) ? "" : " order "
                        + String.join("-", p.layout().mesh().order().stream().map(org.clustersim.strategies.training.Mesh.Dim::id).toList()), s.schedule().id(),
                p.vp() > 1 ? " (" + p.vp() + " chunks per rank)" : "", s.microbatches(), s.training().microBatch(),
                s.training().seqLen(), s.training().recompute().name().toLowerCase(Locale.ROOT));
        for (ParallelGroups.Group g : r.groups()) {
            if (g.size() > 1) {
                List<String> ex = g.example();
                String members = ex.size() <= 4 ? String.join(", ", ex)
                        : String.join(", ", ex.subList(0, 3)) + ", ... " + ex.get(ex.size() - 1);
                out.printf(Locale.ROOT, "%-10s %s on %s over %s: %s%n", g.kind() + " group", words.devices(g.size()),
                        words.servers(g.servers()), String.join(" + ", g.crosses()), members);
            }
        }
        allToAll(out, r.allToAll(), words);
        faults(out, r);
        out.println();
        if (r.steps() != null) {
            int last = r.steps().size() - 1;
            out.printf(Locale.ROOT, "steps            %d simulated back to back; the figures below are step %d's, "
                    + "from the end of step %d to its own end%n", r.steps().size(), last, last - 1);
            for (RunSummary.StepSpan st : r.steps()) {
                out.printf(Locale.ROOT, "  step %-3d       %s to %s: %s%n", st.step(), duration(st.startNs()),
                        duration(st.endNs()), duration(st.durationNs()));
            }
        }
        if (s.parallelism().overlapParamGather()) {
            boolean aligned = s.parallelism().alignParamGather()
                    && s.schedule() == org.clustersim.strategies.pipeline.ScheduleKind.INTERLEAVED;
            out.printf(Locale.ROOT, "param gather     overlapped with the forward, %s (overlapParamGather%s)%n",
                    aligned ? "each chunk's buckets dispatched together by the schedule"
                            : "bucket by bucket from the forward pre-hooks",
                    aligned && s.parallelism().overlapParamGatherWithOptimizerStep()
                            ? ", the first chunk's with the optimizer step" : "");
            if (!aligned && s.parallelism().layout().mesh().pp() > 1) {
                // Megatron-core dispatches a rank's first gather from its first module's pre-hook, which runs
                // after the rank has received its input (distributed_data_parallel.py, finish_param_sync)
                out.printf(Locale.ROOT, "                 on pipeline ranks after the first the gathers start only once the "
                        + "input activations arrived, so they add to the pipeline's fill; the interleaved schedule "
                        + "(alignParamGather) starts them under the wait%n");
            }
        }
        out.printf(Locale.ROOT, "step time        %s%n", duration(r.stepTimeNs()));
        out.printf(Locale.ROOT, "throughput       %,.0f tokens/s, %.1f model TFLOP/s per %s%n", r.tokensPerSecond(),
                r.tflopsPerGpu(), words.device());
        out.printf(Locale.ROOT, "MFU / HFU        %.1f%% / %.1f%% of the bf16 peak%s%n", 100 * r.mfu(), 100 * r.hfu(),
                r.mfuFp8Peak() > 0 ? String.format(Locale.ROOT, " (MFU %.1f%% of the fp8 peak)", 100 * r.mfuFp8Peak())
                        : r.mfuFp4Peak() > 0 ? String.format(Locale.ROOT, " (MFU %.1f%% of the fp4 peak)",
                        100 * r.mfuFp4Peak()) : "");
        // the idle time and its three parts, defined in docs/metrics.md ("Idle time")
        out.printf(Locale.ROOT, "idle (mean)      %.2f%% of the step: pipeline bubble %.2f%%, exposed communication "
                + "%.2f%%, other waits %.2f%%%n", 100 * r.idleFraction(), 100 * r.pipelineBubbleFraction(),
                100 * r.exposedCommFraction(), 100 * r.otherWaitFraction());
        dcn(out, r);
        if (!s.interference()) {
            out.printf(Locale.ROOT, "interference     off (simulation.interference: false): overlapped communication is free%n");
        } else if (s.device().commKernels() == null) {
            out.printf(Locale.ROOT, "interference     not modelled: the device profile has no communication section%n");
        } else {
            RunSummary.Device most = r.devices().stream()
                    .max(java.util.Comparator.comparingLong(RunSummary.Device::interferenceNs)).orElseThrow();
            out.printf(Locale.ROOT, "interference     %.2f%% of the step lost to communication kernels beside compute "
                    + "(most: %s on %s)%n", 100 * r.interferenceFraction(), duration(most.interferenceNs()), most.name());
        }
        out.printf(Locale.ROOT, "weights / rank   %.2g model-copy share%s%n", r.weightCopiesPerRank(),
                r.weightCopiesPerRank() > 1 ? "s" : "");
        RunSummary.Device worst = r.devices().stream()
                .max(java.util.Comparator.comparingLong(d -> d.memory().peakBytes())).orElseThrow();
        RunSummary.Memory mem = worst.memory();
        out.printf(Locale.ROOT, "peak memory      %.1f GB of %.0f on %s (weights %.1f, gradients %.1f, optimizer %.1f, "
                + "workspace %.1f, activations %.1f)%n", mem.peakBytes() / 1e9, s.cluster().accelerator().hbmBytes() / 1e9,
                worst.name(), mem.weightBytes() / 1e9, mem.gradientBytes() / 1e9, mem.optimizerBytes() / 1e9,
                mem.workspaceBytes() / 1e9, mem.activationBytes() / 1e9);
        if (mem.peakBytes() > s.cluster().accelerator().hbmBytes()) {
            out.printf(Locale.ROOT, "WARNING          this layout does not fit in HBM; simulated anyway (allowOom)%n");
        }
        out.println();
        out.printf(Locale.ROOT, "pipeline ranks (TP rank 0 of data-parallel replica 0)%n");
        out.printf(Locale.ROOT, "%-5s %-14s %14s %14s %14s %14s %14s %10s%n", "rank", "device", "busy", "idle",
                "pp bubble", "exposed comm", "other waits", "peak acts");
        for (RunSummary.Device d : r.devices()) {
            if (d.tpRank() == 0 && d.cpRank() == 0 && d.dpRank() == 0) {
                out.printf(Locale.ROOT, "%-5d %-14s %14s %14s %14s %14s %14s %10.2f%n", d.pipelineRank(), d.name(),
                        duration(d.computeBusyNs()), duration(d.computeIdleNs()), duration(d.pipelineBubbleNs()),
                        duration(d.exposedCommNs()), duration(d.otherWaitNs()), d.peakActivations());
            }
        }
        if (!r.links().isEmpty()) {
            out.println();
            out.printf(Locale.ROOT, "busiest links (%s network model%s)%n", s.fidelity().name().toLowerCase(Locale.ROOT),
                    r.steps() == null ? "" : ", all " + r.steps().size() + " steps");
            for (int i = 0; i < Math.min(5, r.links().size()); i++) {
                RunSummary.LinkTraffic l = r.links().get(i);
                out.printf(Locale.ROOT, "  %-40s %12s busy %s (%.1f%% of the %s)%n", l.link(), bytes(l.bytes()),
                        duration(l.busyNs()), 100 * l.busyFraction(), r.steps() == null ? "step" : "run");
            }
        }
        out.println();
        out.printf(Locale.ROOT, "simulated %,d tasks with %,d events in %.2f s%n", r.tasks(), r.events(), wallSeconds);
        if (trace != null) {
            out.printf(Locale.ROOT, "trace      %s  (%s)%n", trace, traceFormat.viewers());
        } else {
            out.printf(Locale.ROOT, "trace      not written (--no-trace)%n");
        }
        if (summaryJson != null) {
            out.printf(Locale.ROOT, "summary    %s%n", summaryJson);
        }
        out.flush();
    }

    /** The MoE all-to-all groups: how many, how wide, what they cross, and the first few. */
    private static void allToAll(PrintWriter out, AllToAllGroups a, DeviceWords words) {
        if (a == null) {
            return;
        }
        out.printf(Locale.ROOT, "all-to-all %d EP groups of %s (%d per stage), %d of them across %s (up to %d "
                + "each) over %s%n", a.count(), words.devices(a.size()), a.perStage(), a.spanningServers(),
                words.servers(), a.maxServers(), String.join(" + ", a.crosses()));
        int shown = Math.min(4, a.groups().size());
        for (int i = 0; i < shown; i++) {
            AllToAllGroups.Member g = a.groups().get(i);
            out.printf(Locale.ROOT, "           stage %d: %s %s on %s %s%n", g.stage(), words.devices(), g.gpus(),
                    g.serverCount() == 1 ? words.server() : words.servers(), g.servers());
        }
        if (a.groups().size() > shown) {
            out.printf(Locale.ROOT, "           ... %d more (all in the JSON summary)%n", a.groups().size() - shown);
        }
    }

    /**
     * The faults and stragglers the run applied (issue 34: a summary never said so): which link,
     * switch, NIC or device, when, and what; one that started after the run ended is flagged as
     * having changed nothing.
     */
    private static void faults(PrintWriter out, RunSummary r) {
        String label = "faults";
        for (RunSummary.AppliedFault f : r.faults()) {
            String state = (f.capacityFraction() == 0 ? "down"
                    : String.format(Locale.ROOT, "at %.0f%% of its capacity", 100 * f.capacityFraction()))
                    + (f.extraLatencyNs() > 0 ? " +" + duration(f.extraLatencyNs()) + " latency" : "");
            out.printf(Locale.ROOT, "%-10s %s %s %s %s, %d link%s (%s)%s%n", label, f.target(), f.name(), state,
                    span(f.atNs(), f.durationNs()), f.links(), f.links() == 1 ? "" : "s", f.source(),
                    f.applied() ? "" : "; started after the run ended: no effect");
            label = "";
        }
        label = "stragglers";
        for (RunSummary.Straggler g : r.stragglers()) {
            out.printf(Locale.ROOT, "%-10s %s at %.2fx speed (each kernel %.2fx as long) %s (%s)%s%n", label, g.name(),
                    g.speed(), g.slowdown(), span(g.atNs(), g.durationNs()), g.source(),
                    g.applied() ? "" : "; started after the run ended: no effect");
            label = "";
        }
    }

    /** When a fault held: {@code from the start for the rest of the run}, {@code from 1.000 ms for 2.000 ms}. */
    private static String span(long atNs, long durationNs) {
        return (atNs == 0 ? "from the start" : "from " + duration(atNs)) + " "
                + (durationNs == 0 ? "for the rest of the run" : "for " + duration(durationNs));
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

    /**
     * With TPU slices joined by DCN: the cross-slice gradient reductions' time per chip (mean over
     * the chips), exposed (compute idle) and under compute, so what DCN costs is read apart from
     * the other communication.
     */
    private static void dcn(PrintWriter out, RunSummary r) {
        long exposed = 0;
        long overlapped = 0;
        boolean any = false;
        for (RunSummary.Device d : r.devices()) {
            Long e = d.exposedByKind().get(DCN);
            Long o = d.overlappedByKind().get(DCN);
            any |= e != null || o != null;
            exposed += e == null ? 0 : e;
            overlapped += o == null ? 0 : o;
        }
        if (any) {
            int n = r.devices().size();
            out.printf(Locale.ROOT, "DCN              cross-slice gradient reductions %s exposed, %s under compute "
                    + "(mean per chip)%n", duration(exposed / n), duration(overlapped / n));
        }
    }
}
