package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;
import static org.clustersim.study.scenario.SectionChecks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.input.Section;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.Layout;
import org.clustersim.strategies.training.LayerSplit;
import org.clustersim.strategies.training.LayoutBuilder;
import org.clustersim.strategies.training.LayoutRules;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.training.Zero3Impl;

/**
 * The {@code parallelism} section of a scenario with the {@code schedule} section it shares
 * {@code v} with: the layout, ZeRO 3's sharding options, the schedule kind and the chunk count it
 * runs. Kept apart from {@link ScenarioReader}, which calls it in the order its errors are listed.
 */
final class ParallelismSectionReader {
    private final Section parSec;
    private final Section schedSec;

    /**
     * @param parSec   the {@code parallelism} section
     * @param schedSec the {@code schedule} section ({@code v} may be given there instead of {@code vp})
     */
    ParallelismSectionReader(Section parSec, Section schedSec) {
        this.parSec = parSec;
        this.schedSec = schedSec;
    }

    /**
     * The parallelism as declared: the layout (sizes, experts, order, ZeRO and its sharding), the
     * chunk count asked for, the layers per stage and the overlap switches. Reports each broken
     * layout rule at its field; an impossible expert fold is read without experts.
     */
    Scenario.Parallelism declared() {
        int tp = TP.integer(parSec);
        int pp = PP.integer(parSec);
        int dp = DP.integer(parSec);
        int cp = CP.integer(parSec);
        int ep = EP.integer(parSec);
        // Megatron-core: expert_tensor_parallel_size defaults to tensor_model_parallel_size
        int etp = ETP.integer(parSec, tp);
        int vp = VP.integer(parSec);
        int v = V.integer(schedSec, vp);
        int zero = ZERO.integer(parSec);
        boolean sp = SEQUENCE_PARALLEL.bool(parSec);
        boolean overlap = OVERLAP_GRAD.bool(parSec);
        boolean overlapParamGather = OVERLAP_PARAM_GATHER.bool(parSec);
        boolean alignParamGather = ALIGN_PARAM_GATHER.bool(parSec);
        boolean withOptimizerStep = OVERLAP_PARAM_GATHER_WITH_OPTIMIZER_STEP.bool(parSec);
        boolean a2aOverlap = A2A_OVERLAP.bool(parSec);
        AllToAllAlgorithm allToAll = ALL_TO_ALL.choice(parSec);
        double bucketMb = BUCKET.number(parSec).orElse(TrainingStep.DEFAULT_BUCKET / 1e6);
        int[] layersPerStage = LAYERS_PER_STAGE.integerList(parSec).orElse(null);
        int shardGroup = SHARD_GROUP.integer(parSec, 0);
        ContextParallel cpVariant = CP_VARIANT.choice(parSec);
        List<Mesh.Dim> order = Mesh.DEFAULT_ORDER;
        Optional<String> orderText = ORDER.text(parSec);
        if (orderText.isPresent()) {
            try {
                order = Mesh.parseOrder(orderText.get());
            } catch (IllegalArgumentException e) {
                parSec.error("order", "found '" + orderText.get() + "': " + e.getMessage()
                        + " (innermost first, for example tp-cp-pp-dp)");
            }
        }
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.overlapParamGather(broken, overlapParamGather, zero, overlap);
        if (vp != 1 && given(schedSec, "v") && v != vp) {
            schedSec.error("v", "found " + v + ", but parallelism.vp is " + vp + "; give one of them");
        }
        LayoutRules.moeOverlap(broken, a2aOverlap, ep, pp, null, null);
        report(parSec, broken);
        ShardingOptions sharding = sharding(zero, pp, v);
        LayoutBuilder b = Layout.builder().sizes(tp, cp, pp, dp).experts(ep, etp).order(order)
                .zero(zero).shardGroup(given(parSec, "shardGroup") ? shardGroup : 0).sharding(sharding)
                .sequenceParallel(sp).cpKind(cpVariant)
                .bucketBytes(Math.round(bucketMb * 1e6)).overlapGradReduce(overlap)
                .tpCommOverlap(TP_COMM_OVERLAP.bool(parSec))
                .allToAll(allToAll)
                .moeDispatcher(MOE_DISPATCHER.choice(parSec));
        report(parSec, LayoutRules.layout(b));
        Layout layout;
        try {
            layout = b.layout();
        } catch (IllegalArgumentException e) {
            // the expert fold was reported above; the rest is read without experts
            layout = b.experts(1, tp).layout();
        }
        return new Scenario.Parallelism(layout, v, layersPerStage, overlapParamGather, alignParamGather,
                withOptimizerStep, a2aOverlap);
    }

    /**
     * The layers per stage Megatron-core builds with {@code accountForEmbeddingInPipelineSplit} and
     * {@code accountForLossInPipelineSplit} ({@link LayerSplit#accounting}), or the declared list
     * (null for even) when neither is on. Errors at the flag when layersPerStage is also given or the
     * stages do not divide the counted layers.
     *
     * @param declared layers per stage as written, or null
     * @param stages   stages in pipeline order
     * @param layers   the model's transformer layers
     */
    int[] layersPerStage(int[] declared, int stages, int layers) {
        boolean embedding = ACCOUNT_EMBEDDING.bool(parSec);
        boolean loss = ACCOUNT_LOSS.bool(parSec);
        if (!embedding && !loss) {
            return declared;
        }
        String at = embedding ? ACCOUNT_EMBEDDING.name() : ACCOUNT_LOSS.name();
        if (declared != null) {
            // Megatron-core refuses the accounting beside an explicit first/last stage size too
            parSec.error(at, "found true beside layersPerStage; expected one of them (the flag divides the layers "
                    + "evenly after counting the " + (embedding ? "embedding" : "loss") + " as a layer)");
            return declared;
        }
        try {
            return LayerSplit.accounting(layers, stages, embedding, loss).perStage();
        } catch (IllegalArgumentException e) {
            parSec.error(at, "found true: " + e.getMessage() + "; expected pp x vp to divide model.layers"
                    + (embedding && loss ? " + 2" : " + 1"));
            return null;
        }
    }

    /**
     * ZeRO 3's framework and options: {@code zero3Impl}, {@code reshardAfterForward} (fsdp2 only)
     * and {@code gradReduceDtype}, each an error below ZeRO 3.
     */
    private ShardingOptions sharding(int zero, int pp, int v) {
        Zero3Impl impl = ZERO3_IMPL.choice(parSec);
        boolean reshard = RESHARD.bool(parSec);
        int reduceBytes = GRAD_REDUCE_DTYPE.choice(parSec, 0);
        boolean ok = true;
        for (String key : List.of("zero3Impl", "reshardAfterForward", "gradReduceDtype")) {
            if (given(parSec, key) && zero != 3) {
                parSec.error(key, "given with zero: " + zero + "; expected zero: 3, the only stage that gathers weights "
                        + "layer by layer");
                ok = false;
            }
        }
        if (given(parSec, "reshardAfterForward") && impl != Zero3Impl.FSDP2 && zero == 3) {
            parSec.error("reshardAfterForward", "found " + reshard + " with zero3Impl: " + impl.id() + "; only fsdp2 has "
                    + "reshard_after_forward (Megatron-FSDP always reshards; DeepSpeed keeps what its "
                    + "stage3_max_reuse_distance says)");
            ok = false;
        }
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.deepSpeed(broken, zero, impl, pp, v);
        report(parSec, broken);
        ok &= broken.isEmpty();
        if (!ok || zero != 3) {
            return ShardingOptions.defaults();
        }
        return new ShardingOptions(impl, reshard, reduceBytes, ShardingOptions.DeepSpeedConfig.DEFAULTS);
    }

    /** {@code schedule.kind}. */
    ScheduleKind schedule() {
        return KIND.choice(schedSec);
    }

    /**
     * The chunk count the schedule runs with: v >= 2 for interleaved, 2 for the V shapes, 1
     * otherwise. Reports a v that does not fit the schedule.
     */
    int chunks(ScheduleKind kind, int v) {
        Section where = given(schedSec, "v") ? schedSec : parSec;
        String key = given(schedSec, "v") ? "v" : "vp";
        if (kind.takesChunks()) {
            if (v < 2) {
                where.error(key, "found " + v + ", but the interleaved schedule needs v >= 2 model chunks per rank"
                        + " (schedule.v)");
            }
            return v;
        }
        if (v != 1 && v != kind.fixedChunks()) {
            where.error(key, "found " + v + ", but " + kind.id() + (kind.fixedChunks() == 2
                    ? " always places 2 chunks per rank in a V; leave v out or use 2"
                    : " runs one chunk per rank; leave v out or use 1 (interleaved takes v)"));
        }
        return kind.fixedChunks();
    }
}
