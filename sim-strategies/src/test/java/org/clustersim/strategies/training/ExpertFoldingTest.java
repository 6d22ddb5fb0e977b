package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * MoE parallel folding on one 8-GPU server, measured from built steps against figures worked out
 * by hand: the all-to-alls' groups and bytes, the expert TP gather, the expert-gradient
 * reductions and the memory per GPU.
 */
class ExpertFoldingTest {
    static final Topology ONE = SwitchedClusterSpec.dgxH100(1).build();
    static final List<Mesh.Dim> MEGATRON = Mesh.parseOrder("tp-cp-dp-pp");
    static final KernelCosts H100 = KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16);

    static TrainingStep step(TransformerModel m, Mesh mesh, int replicas) {
        return TrainingStep.builder(m, ONE).mesh(mesh).zero(1).sequenceParallel(mesh.tp() > 1).batch(2, 1, 2048)
                .kernels(H100).replicas(replicas).build();
    }

    static List<Task> named(TaskGraph g, String prefix) {
        List<Task> out = new ArrayList<>();
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).name().startsWith(prefix)) {
                out.add(g.task(i));
            }
        }
        return out;
    }

    static Set<Integer> devices(TaskGraph g, Task t) {
        Set<Integer> out = new TreeSet<>();
        for (int i = 0; i < t.streamCount(); i++) {
            out.add(g.stream(t.stream(i)).device());
        }
        return out;
    }

    static long bytes(List<Task> tasks) {
        long sum = 0;
        for (Task t : tasks) {
            sum += ((Work.Communication) t.work()).bytes();
        }
        return sum;
    }

    /** (source, destination) pairs of a communication's flows between different GPUs. */
    static Set<List<Integer>> pairs(Task t) {
        Set<List<Integer>> out = new HashSet<>();
        for (Phase ph : ((Work.Communication) t.work()).phases()) {
            for (Flow f : ph.flows()) {
                if (f.srcDevice() != f.dstDevice()) {
                    out.add(List.of(f.srcDevice(), f.dstDevice()));
                }
            }
        }
        return out;
    }

    @Test
    void foldingEpOverTheTpPairsSendsSevenEighthsOfEachGpusShareInsteadOfThreeQuarters() {
        TransformerModel m = ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2);
        // TP 2 x DP 4 on 8 GPUs. Folded: EP 8, ETP 1 (one group of all 8). Unfolded: EP 4 at each TP rank.
        TaskGraph folded = step(m, new Mesh(2, 1, 1, 4, 8, 1, MEGATRON), 1).build().graph();
        TaskGraph unfolded = step(m, new Mesh(2, 1, 1, 4, 4, 2, MEGATRON), 1).build().graph();
        List<Task> a2a = named(folded, "ep-a2a");
        assertEquals(4 * 2 * 4, a2a.size(), "layers x microbatches x (dispatch, combine) x (forward, backward)");
        for (Task t : a2a) {
            assertEquals(56, pairs(t).size(), "every GPU sends to each of the 7 others");
        }
        // each GPU dispatches its share S = T / tp x topK x h x 2 = 1024 x 2 x 1024 x 2 bytes, S / ep to each
        // member: folded S / 8 to each of 7 others, unfolded S / 4 to each of 3 others at its TP rank
        long s = 1024L * 2 * 1024 * 2;
        assertFlows(a2a.get(0), 56, s / 8);
        List<Task> pairsOfFour = named(unfolded, "ep-a2a");
        assertEquals(a2a.size(), pairsOfFour.size());
        assertFlows(pairsOfFour.get(0), 2 * 12, s / 4);
        assertTrue(pairs(pairsOfFour.get(0)).stream().allMatch(p -> p.get(0) % 2 == p.get(1) % 2),
                "unfolded, tokens stay at their TP rank");
        // unfolded, the TP pair gathers the routed tokens; folded with ETP 1 nothing is gathered
        assertEquals(0, named(folded, "tp-ag routed").size() + named(folded, "etp-ag").size());
        assertEquals(16, named(unfolded, "tp-ag routed").size());
        // with every replica simulated each replica's tasks carry what its own GPUs send: the same bytes
        TaskGraph all = step(m, new Mesh(2, 1, 1, 4, 8, 1, MEGATRON), 4).build().graph();
        assertEquals(bytes(a2a), bytes(named(all, "ep-a2a")), 1e-3 * bytes(a2a));
    }

    /**
     * {@code count} flows between distinct GPUs, all of the same size: {@code payload} bytes over
     * the protocol's efficiency on NVLink (above two thirds for every protocol).
     */
    static void assertFlows(Task t, int count, long payload) {
        assertEquals(count, pairs(t).size());
        Set<Long> sizes = new HashSet<>();
        for (Phase ph : ((Work.Communication) t.work()).phases()) {
            for (Flow f : ph.flows()) {
                if (f.srcDevice() != f.dstDevice()) {
                    sizes.add(f.bytes());
                    assertTrue(f.bytes() >= payload && f.bytes() < 1.5 * payload, f.bytes() + " for " + payload);
                }
            }
        }
        assertEquals(1, sizes.size(), sizes.toString());
    }

    @Test
    void anExpertTpOfItsOwnGathersRoutedTokensInsideItAndSharedExpertInputsOverTp() {
        TransformerModel m = ExpertParallelTest.moe(new TransformerModel.Experts(8, 2, 2048, 1, 1.0, 0));
        // TP 4 x DP 2, experts ETP 2 x EP 4 (EDP 1): the ETP pairs are {0,1}, {2,3} of each TP group
        TaskGraph g = step(m, new Mesh(4, 1, 1, 2, 4, 2, MEGATRON), 1).build().graph();
        List<Task> etp = named(g, "etp-ag routed");
        assertEquals(4 * 2 * 2, etp.size(), "layers x microbatches x (forward, backward)");
        assertEquals(etp.size(), named(g, "etp-rs routed").size());
        for (Task t : etp) {
            assertEquals(Set.of(0, 1, 2, 3), devices(g, t));
            for (List<Integer> p : pairs(t)) {
                assertEquals(p.get(0) / 2, p.get(1) / 2, "inside an expert TP pair: " + p);
            }
        }
        List<Task> shared = named(g, "tp-ag shared");
        assertEquals(etp.size(), shared.size());
        assertEquals(Set.of(0, 1, 2, 3), devices(g, shared.get(0)));
        assertTrue(pairs(shared.get(0)).stream().anyMatch(p -> p.get(0) / 2 != p.get(1) / 2),
                "the shared experts are split over the attention's TP 4: " + pairs(shared.get(0)));
        // EP groups: t' = 0..3 of stage number et + 2 (e + 4 ed): GPU 0's group is 0, 2, 4, 6
        Set<Integer> a2a = new TreeSet<>();
        for (List<Integer> p : pairs(named(g, "ep-a2a").get(0))) {
            if (p.get(0) == 0) {
                a2a.add(p.get(1));
            }
        }
        assertEquals(Set.of(2, 4, 6), a2a);
    }

    @Test
    void expertGradientsAreReducedOverTheExpertDataParallelGroups() {
        TransformerModel m = ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2);
        // TP 2 x DP 4, EP 4 x ETP 1 x EDP 2: a stage's number is t + 2 d = the GPU; EDP groups {e, e + 4}
        TrainingStep s = step(m, new Mesh(2, 1, 1, 4, 4, 1, MEGATRON), 4);
        TaskGraph g = s.build().graph();
        List<Task> reductions = named(g, "expert-grad");
        Set<Set<Integer>> groups = new HashSet<>();
        for (Task t : reductions) {
            groups.add(devices(g, t));
        }
        assertEquals(Set.of(Set.of(0, 4), Set.of(1, 5), Set.of(2, 6), Set.of(3, 7)), groups);
        assertEquals(4, reductions.size(), "one per expert DP group");
        // each GPU's Adam step waits for its own group's reduction
        for (Task adam : named(g, "adam step")) {
            int device = devices(g, adam).iterator().next();
            boolean waits = false;
            for (int i = 0; i < adam.depCount(); i++) {
                Task dep = g.task(adam.dep(i));
                waits |= dep.name().startsWith("expert-grad") && devices(g, dep).contains(device);
            }
            assertTrue(waits, "GPU " + device);
        }
        // dense gradients still over the 4 replicas of each TP rank
        for (Task t : named(g, "dp-grad")) {
            Set<Integer> d = devices(g, t);
            assertTrue(d.equals(Set.of(0, 2, 4, 6)) || d.equals(Set.of(1, 3, 5, 7)), d.toString());
        }
    }

    @Test
    void expertStatesAreAnEpthOfTheExpertsWholeShardedOverTheExpertDataParallelGroup() {
        TransformerModel m = ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2);
        TrainingStep s = step(m, new Mesh(2, 1, 1, 4, 4, 1, MEGATRON), 1);
        // 4 layers x 8 / 4 experts x 3 matrices of 1024 x 2048, whole (ETP 1)
        double experts = 4 * 2 * 3.0 * 1024 * 2048;
        assertEquals(50_331_648, experts);
        assertEquals(experts, s.stageExpertParams(0), 0);
        // dense: attention (q, k, v of 16 x 64 and the output, 1024 x 4096) over TP 2, router 1024 x 8, two
        // norms, per layer; the untied embedding and logits, 32000 x 1024 each over TP 2
        double dense = 4 * (1024.0 * 4096 / 2 + 1024 * 8 + 2 * 1024) + 2 * 32000.0 * 1024 / 2;
        assertEquals(41_197_568, dense);
        assertEquals(dense + experts, s.stageParams(0), 0);
        MemoryModel.States st = new MemoryModel(s).states(0);
        assertEquals(2 * (dense + experts), st.weights(), 1);
        assertEquals(4 * (dense + experts), st.gradients(), 1, "ZeRO 1 keeps whole fp32 gradients");
        // ZeRO 1: dense Adam state over the 4 replicas, expert state over the EDP pair
        assertEquals(12 * (dense / 4 + experts / 2), st.optimizer(), 1);
    }

    @Test
    void expertGemmsRunOnTheExpertTpGroupsRowsAtTheExpertsFullWidth() {
        TransformerModel m = ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2);
        // TP 2 with ETP 1: each GPU's experts see its own T / 2 tokens' routed rows at full width, the same
        // GEMMs as one GPU without TP on half the sequence
        LayerCostModel folded = new LayerCostModel(m, H100, 2, true, 1, 2048, LayerCostModel.Recompute.NONE, 1, 4, 1);
        LayerCostModel alone = new LayerCostModel(m, H100, 1, false, 1, 1024, LayerCostModel.Recompute.NONE, 1, 4, 1);
        LayerCostModel split = new LayerCostModel(m, H100, 2, true, 1, 2048, LayerCostModel.Recompute.NONE, 1, 4);
        for (String op : List.of("experts fc1", "experts fc2")) {
            assertEquals(op(alone.experts(), op).fNs(), op(folded.experts(), op).fNs(), 1e-9, op);
            assertEquals(op(alone.experts(), op).wNs(), op(folded.experts(), op).wNs(), 1e-9, op);
        }
        // the work per GPU is the same whichever way the experts are split; the shapes differ
        assertEquals(split.experts().fFlops(), folded.experts().fFlops(), 1);
        assertTrue(op(split.experts(), "experts fc1").fNs() != op(folded.experts(), "experts fc1").fNs());
    }

    static LayerCostModel.OpTime op(LayerCostModel.Block b, String name) {
        return b.ops().stream().filter(o -> o.op().equals(name)).findFirst().orElseThrow();
    }
}
