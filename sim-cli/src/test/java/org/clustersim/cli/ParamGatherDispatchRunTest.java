package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code overlapParamGather} dispatched as Megatron-core dispatches it, through {@code clustersim
 * run} on reduced variants of GPT-3 175B on 128 H100 (fewer layers and microbatches, so that each
 * run takes a few seconds): the bundled TP 8, PP 8, DP 2 scenario under 1F1B, and NeMo's TP 4,
 * PP 8, DP 4 interleaved layout (here v 3 over 24 layers instead of v 12 over 96).
 */
class ParamGatherDispatchRunTest {
    private static final String BUNDLED = "gpt3-175b-128xh100-tp8-pp8-dp2";
    private static final String INTERLEAVED = "parallelism.tp=4;parallelism.dp=4;schedule.kind=interleaved;"
            + "schedule.v=3;model.layers=24;training.globalBatch=32;simulation.steps=3";
    private static final String ONE_F_ONE_B = "model.layers=16;training.globalBatch=16;simulation.steps=3";
    private static final String OVERLAP = ";parallelism.overlapParamGather=true";

    @TempDir
    Path dir;

    /** The steady-state (last) step of the bundled scenario with {@code overrides}. */
    private long step(String name, String overrides) throws IOException {
        return step(BUNDLED, name, overrides);
    }

    private long step(String bundled, String name, String overrides) throws IOException {
        Path file = ScenarioOverrides.write(bundled, overrides, dir.resolve(name + ".yaml"));
        Path summary = dir.resolve(name + ".json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--no-trace", "--summary",
                summary.toString());
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(summary.toFile()).get("stepTimeNs").asLong();
    }

    @Test
    void alignedGathersShortenTheInterleavedSteadyState() throws IOException {
        long after = step("after", INTERLEAVED);
        long aligned = step("aligned", INTERLEAVED + OVERLAP);
        long preHooks = step("pre-hooks", INTERLEAVED + OVERLAP + ";parallelism.alignParamGather=false");
        long withOptimizer = step("with-optimizer", INTERLEAVED + OVERLAP
                + ";parallelism.overlapParamGatherWithOptimizerStep=true");
        assertTrue(aligned < after, aligned + " ns with the option, " + after + " without");
        // dispatched by each chunk's first pre-hook (the simulator's dispatch before), later ranks
        // expose their gathers after their activations arrive and the waits cascade
        assertTrue(preHooks > after, preHooks + " ns dispatched by the pre-hooks, " + after + " without");
        assertTrue(withOptimizer < aligned, withOptimizer + " ns with the optimizer step, " + aligned + " without");
    }

    @Test
    void oneFOneBIgnoresAlignAsMegatronLmDoes() throws IOException {
        // arguments.py sets align_param_gather to False without virtual pipelining, and the 1F1B
        // schedule never calls param_sync_func: the pre-hooks dispatch the gathers either way
        assertEquals(step("aligned", ONE_F_ONE_B + OVERLAP),
                step("not-aligned", ONE_F_ONE_B + OVERLAP + ";parallelism.alignParamGather=false"));
    }

    @Test
    void expertGathersAcrossTpRanksKeepOneStreamOrder() throws IOException {
        // etp 1 under tp 4: each expert DP group spans TP ranks, so its gather shares the streams
        // of two TP ranks' dense gathers; queued behind a dense bucket that the forward issues only
        // after the experts, it deadlocked the step. Without pipelining the overlap hides all
        // buckets but the first, so the step is shorter than with the gathers after the optimizer.
        String moe = "parallelism.tp=4;parallelism.pp=1;parallelism.dp=16;parallelism.ep=2;parallelism.etp=1;"
                + "model.layers=4;training.globalBatch=16;simulation.allowOom=true";
        long after = step("mixtral-8x7b-64xh100-tp2-pp4-ep8", "moe-after", moe);
        long overlapped = step("mixtral-8x7b-64xh100-tp2-pp4-ep8", "moe-overlap", moe + OVERLAP);
        assertTrue(overlapped < after, overlapped + " ns with the option, " + after + " without");
        String interleaved = moe.replace("parallelism.pp=1;parallelism.dp=16", "parallelism.pp=2;parallelism.dp=8")
                + ";schedule.kind=interleaved;schedule.v=2";
        assertTrue(step("mixtral-8x7b-64xh100-tp2-pp4-ep8", "moe-aligned", interleaved + OVERLAP) > 0);
    }
}
