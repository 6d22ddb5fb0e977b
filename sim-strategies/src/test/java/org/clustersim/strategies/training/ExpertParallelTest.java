package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfiles;
import org.junit.jupiter.api.Test;

/** Mixture-of-experts layers and expert parallelism, measured from built and simulated steps. */
class ExpertParallelTest {
    static final TransformerModel.Experts EIGHT_TOP2 = new TransformerModel.Experts(8, 2, 2048, 0, 1.0, 0);

    static TransformerModel moe(TransformerModel.Experts e) {
        return new TransformerModel("moe", 4, 1024, 16, 16, 4096, TransformerModel.FfnKind.SWIGLU, 32000, false, e);
    }

    /** A step of {@code m} on {@code t}: 2 microbatches of one sequence, bf16 on H100. */
    static LayoutBuilder expertStep(TransformerModel m, Topology t) {
        return TrainingStep.builder(m, t).batch(2, 1, 2048)
                .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16));
    }

    static long bytesOf(TaskGraph g, String category) {
        long sum = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).category().equals(category) && g.task(i).work() instanceof Work.Communication c) {
                sum += c.bytes();
            }
        }
        return sum;
    }

    static int tasksNamed(TaskGraph g, String prefix) {
        int n = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).name().startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void presetsMatchTheirPublishedParameterCounts() {
        // Mixtral paper: 46.7 B parameters, 12.9 B active per token
        assertEquals(46.7e9, TransformerModel.MIXTRAL_8X7B.parameters(), 0.01 * 46.7e9);
        assertEquals(12.9e9, TransformerModel.MIXTRAL_8X7B.activeParameters(), 0.01 * 12.9e9);
        // DeepSeek-V3 and GPT-OSS: model.AttentionShapeTest
    }

    @Test
    void expertComputeScalesWithTopKAndCapacityButNotWithExpertParallelism() {
        KernelCosts gemm = KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16);
        TransformerModel m = moe(EIGHT_TOP2);
        LayerCostModel one = new LayerCostModel(m, gemm, 1, false, 1, 2048, LayerCostModel.Recompute.NONE, 1, 1);
        // two of eight experts per token: 2 x 3 matrices of 1024 x 2048 per token
        double tokens = 2048;
        assertEquals(2 * tokens * 2 * 3 * 1024 * 2048, one.experts().fFlops(), 1);
        LayerCostModel padded = new LayerCostModel(moe(new TransformerModel.Experts(8, 2, 2048, 0, 1.25, 0)), gemm, 1,
                false, 1, 2048, LayerCostModel.Recompute.NONE, 1, 1);
        assertEquals(1.25 * one.experts().fFlops(), padded.experts().fFlops(), 1);
        // spreading the experts over 8 GPUs gives each the same expert-token pairs in fewer, fuller GEMMs
        LayerCostModel spread = new LayerCostModel(m, gemm, 1, false, 1, 2048, LayerCostModel.Recompute.NONE, 1, 8);
        assertEquals(one.experts().fFlops(), spread.experts().fFlops(), 1);
        assertTrue(spread.experts().fNs() < one.experts().fNs(), "one expert of 8x the rows runs more efficiently");
        // a hot GPU with 1.5x the mean's tokens makes every GPU's routed experts take 1.5x as long
        LayerCostModel hot = new LayerCostModel(moe(new TransformerModel.Experts(8, 2, 2048, 0, 1.0, 0, 0, 1.5)), gemm,
                1, false, 1, 2048, LayerCostModel.Recompute.NONE, 1, 8);
        assertEquals(1.5 * spread.experts().fNs(), hot.experts().fNs(), 1e-6 * hot.experts().fNs());
        assertEquals(spread.experts().fFlops(), hot.experts().fFlops(), 1, "the model's work is the mean's");
    }

    @Test
    void allToAllsCarryEachGpusRoutedTokensAndScaleWithCapacity() {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        int tp = 2;
        int dp = 8;
        int ep = 4; // each EP group inside one server, where a direct exchange is the algorithm of choice
        TaskGraph g = expertStep(moe(EIGHT_TOP2), two).mesh(new Mesh(tp, 1, 1, dp, ep, Mesh.DEFAULT_ORDER)).zero(1)
                .sequenceParallel(tp > 1).replicas(1).build().build().graph();
        // per a2a: each of the tp x ep GPUs sends (ep - 1) / ep of its share S = T / tp x topK x h x 2 bytes
        double share = 2048.0 / tp * 2 * 1024 * 2;
        int a2as = 4 * 2 * 4; // layers x microbatches x (dispatch and combine, forward and backward)
        assertEquals(a2as, tasksNamed(g, "ep-a2a"));
        // on the wire: the payload over the protocol's efficiency on NVLink (above 80%)
        double payload = a2as * tp * dp * (ep - 1.0) / ep * share; // every EP group exchanges
        assertTrue(bytesOf(g, "ep-comm") >= payload && bytesOf(g, "ep-comm") < 1.25 * payload,
                bytesOf(g, "ep-comm") + " bytes for a payload of " + payload);
        TaskGraph padded = expertStep(moe(new TransformerModel.Experts(8, 2, 2048, 0, 1.5, 0)), two)
                .mesh(new Mesh(tp, 1, 1, dp, ep, Mesh.DEFAULT_ORDER)).zero(1).sequenceParallel(tp > 1).replicas(1)
                .build()
                .build().graph();
        assertEquals(1.5 * bytesOf(g, "ep-comm"), bytesOf(padded, "ep-comm"), 0.001 * bytesOf(g, "ep-comm"));
        // with every replica simulated, each replica's tasks carry what its own GPUs send: no flow twice,
        // none missing
        TaskGraph all = expertStep(moe(EIGHT_TOP2), two).mesh(new Mesh(tp, 1, 1, dp, ep, Mesh.DEFAULT_ORDER)).zero(1)
                .sequenceParallel(tp > 1).build().build().graph();
        assertEquals(bytesOf(g, "ep-comm"), bytesOf(all, "ep-comm"), 0.001 * bytesOf(g, "ep-comm"));
    }

    static long overlappedEp(Timeline t) {
        long sum = 0;
        for (org.clustersim.core.metrics.CommBreakdown c : org.clustersim.core.metrics.CommBreakdown.of(t)) {
            sum += c.overlappedNs().getOrDefault("ep-comm", 0L);
        }
        return sum;
    }

    @Test
    void dualPipeHidesOneMicrobatchsAllToAllsBehindTheOthersCompute() {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        java.util.List<Mesh.Dim> order = Mesh.parseOrder("tp-cp-dp-pp");
        TrainingStep.Built[] built = new TrainingStep.Built[2];
        Timeline[] runs = new Timeline[2];
        ScheduleKind[] kinds = {ScheduleKind.ONE_F_ONE_B, ScheduleKind.DUALPIPE};
        for (int i = 0; i < 2; i++) {
            TrainingStep s = TrainingStep.builder(moe(EIGHT_TOP2), two).mesh(new Mesh(1, 1, 2, 8, 8, order)).zero(1)
                    .schedule(kinds[i].schedule(1)).batch(8, 1, 2048)
                    .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16)).replicas(1).build();
            built[i] = s.build();
            runs[i] = TrainingStepTest.run(s).timeline();
        }
        // one chain at a time: the rank's compute waits for (almost) every all-to-all; DualPipe's paired
        // chunks alternate their blocks on the compute stream, so one's exchanges run under the other's compute
        assertTrue(overlappedEp(runs[1]) > 20 * Math.max(1, overlappedEp(runs[0])),
                overlappedEp(runs[0]) + " ns overlapped under 1F1B, " + overlappedEp(runs[1]) + " under DualPipe");
        // on a GPU's compute stream the forward and backward halves of a pair take turns
        TaskGraph g = built[1].graph();
        int compute = -1;
        for (var st : g.streams()) {
            if (st.device() == 0 && st.name().equals("compute")) {
                compute = st.id();
            }
        }
        String turns = "";
        for (int i = 0; i < g.streamLength(compute); i++) {
            String name = g.task(g.streamTask(compute, i)).name();
            if (name.contains(" & ")) {
                String half = name.contains(" F L") ? "F" : name.contains(" B L") ? "B" : "";
                if (!turns.endsWith(half)) {
                    turns += half;
                }
            }
        }
        assertTrue(turns.contains("FBFB"), turns);
    }

    @Test
    void oneReplicaStandsInForAllOfThem() {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        Timeline one = TrainingStepTest.run(expertStep(moe(EIGHT_TOP2), two)
                .mesh(new Mesh(2, 1, 1, 8, 4, Mesh.DEFAULT_ORDER)).zero(1).sequenceParallel(true).replicas(1).build())
                .timeline();
        Timeline all = TrainingStepTest.run(expertStep(moe(EIGHT_TOP2), two)
                .mesh(new Mesh(2, 1, 1, 8, 4, Mesh.DEFAULT_ORDER)).zero(1).sequenceParallel(true).build()).timeline();
        assertEquals(all.makespan(), one.makespan(), 0.03 * all.makespan());
        assertTrue(TrainingStepTest.exposed(one, "ep-comm") > 0, "the all-to-alls wait on the fabric");
    }

    @Test
    void expertParallelismSpreadsExpertWeightsAndReducesTheirGradientsOverTheirHolders() {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        TransformerModel m = moe(EIGHT_TOP2);
        TrainingStep ep1 = expertStep(m, two).mesh(new Mesh(2, 1, 1, 8, 1, Mesh.DEFAULT_ORDER)).zero(1)
                .sequenceParallel(true).replicas(1).build();
        TrainingStep ep4 = expertStep(m, two).mesh(new Mesh(2, 1, 1, 8, 4, Mesh.DEFAULT_ORDER)).zero(1)
                .sequenceParallel(true).replicas(1).build();
        double expertsPerLayer = 8 * 3.0 * 1024 * 2048 / 2;
        assertEquals(expertsPerLayer / 4 * 4, ep4.stageExpertParams(0), 1);
        assertEquals(ep1.stageParams(0) - ep4.stageParams(0), 4 * expertsPerLayer * 3 / 4, 1);
        // ZeRO 1: dense optimizer state over all 8 replicas, expert state over the 2 holding each expert
        MemoryModel.States s = new MemoryModel(ep4).states(0);
        double dense = ep4.stageParams(0) - ep4.stageExpertParams(0);
        assertEquals(12 * (dense / 8 + ep4.stageExpertParams(0) / 2), s.optimizer(), 1);
        TaskGraph g = ep4.build().graph();
        int reductions = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).name().startsWith("expert-grad")) {
                reductions++;
                assertEquals(2, g.task(i).streamCount(), "a reduction over the replicas holding the same experts");
            }
        }
        assertEquals(4 * 2, reductions, "per EP rank and TP rank");
    }
}
