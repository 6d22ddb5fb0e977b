package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.pipeline.PipelineTasks;

/**
 * Builds a {@link TrainingStep}'s task graph from its per-dimension parts: the layers' tensor-,
 * context- and expert-parallel communication ({@link TensorParallel}, {@link KeyValueExchange},
 * {@link ExpertParallel}) composed into a {@link TransformerLayer}, run by every pipeline rank
 * of every simulated replica ({@link TransformerStageWork}, {@link PipelineReplicas}); then the
 * data-parallel half: ZeRO-3's per-layer gathers and reductions ({@link ShardedWeights}), the
 * gradient reduction ({@link GradientReduction}) and the optimizer step ({@link OptimizerStep}).
 * Several steps ({@link StepSequence}) are built one after the other, each step's first use of
 * its weights waiting for the previous step's update ({@link StepHandover}), or, with the
 * updated weights gathered ahead of the forward, for their gathers ({@link ParamGatherPrefetch}).
 * A framework that composes the dimensions differently composes these parts differently.
 */
public final class StepBuilder {
    private final TrainingStep step;
    private final StepSequence sequence;
    private final boolean copyReplicas;
    private final boolean taskNames;
    private int copiedReplicas;

    public StepBuilder(TrainingStep step) {
        this(step, StepSequence.ONE);
    }

    /** Builds {@code sequence.steps()} consecutive steps of {@code step}. */
    public StepBuilder(TrainingStep step, StepSequence sequence) {
        this(step, sequence, true);
    }

    /**
     * @param copyReplicas whether symmetric replicas' pipelines may be copied from the first
     *                     ({@link PipelineReplicas}); false builds each one, the same graph more
     *                     slowly (for tests that check exactly that)
     */
    public StepBuilder(TrainingStep step, StepSequence sequence, boolean copyReplicas) {
        this(step, sequence, copyReplicas, true);
    }

    /**
     * @param taskNames whether the graph keeps its tasks' names ({@link TaskGraph#builder(boolean)}):
     *                  a plan's candidates show none
     */
    public StepBuilder(TrainingStep step, StepSequence sequence, boolean copyReplicas, boolean taskNames) {
        this.step = step;
        this.sequence = sequence;
        this.copyReplicas = copyReplicas;
        this.taskNames = taskNames;
    }

    /** The tasks of every step on every GPU of the mesh, step after step. */
    public TrainingStep.Built build() {
        copiedReplicas = 0;
        TaskGraph.Builder g = TaskGraph.builder(taskNames);
        for (int d = 0; d < step.mesh().gpus(); d++) {
            g.device(step.topology().device(d).name(), step.topology().device(d).node());
        }
        StageParts parts = StageParts.of(step);
        DataParallelCollectives dpc = new DataParallelCollectives(g, step.topology(), iterationShare(step));
        boolean prefetch = sequence.overlapParamGather() && (step.zero() == 1 || step.zero() == 2);
        int[] firstTasks = new int[sequence.steps()];
        List<List<PipelineTasks>> perReplica = new ArrayList<>();
        for (int d = 0; d < step.replicas(); d++) {
            perReplica.add(new ArrayList<>());
        }
        OptimizerStep previous = null;
        for (int n = 0; n < sequence.steps(); n++) {
            firstTasks[n] = g.taskCount();
            ShardedWeights sharded = step.zero() == 3 && step.dp() * step.cp() > 1 ? new ShardedWeights(step) : null;
            ForwardEntries entries = prefetch ? new ForwardEntries(step.stages()) : null;
            PipelineReplicas replicas = new PipelineReplicas(step, parts.plans(), copyReplicas);
            List<PipelineTasks> pipelines = replicas.addTo(g, parts.work(step, sharded, entries),
                    sharded != null || entries != null);
            copiedReplicas += replicas.copied();
            if (prefetch) {
                new ParamGatherPrefetch(step, sequence, dpc, pipelines, entries).add(previous);
            }
            Map<Integer, List<Integer>> shardReductions = sharded == null ? Map.of() : sharded.add(dpc);
            if (previous != null) {
                new StepHandover(step, g, previous).link(pipelines, firstTasks[n], sharded != null);
            }
            GradientReduction gradients = new GradientReduction(step, dpc, pipelines);
            OptimizerStep optimizer = new OptimizerStep(step, dpc, pipelines, prefetch
                    && sequence.withOptimizerStep() && ParamGatherPrefetch.interleaved(step.schedule()));
            // every rank's buckets first: the tied embedding's sum follows both its ranks' buckets
            List<GradientReduction.Reduced> reduced = new ArrayList<>();
            for (int p = 0; p < step.pp(); p++) {
                for (int t = 0; t < step.tp(); t++) {
                    reduced.add(gradients.reduce(t, p, shardReductions));
                }
            }
            for (int p = 0; p < step.pp(); p++) {
                for (int t = 0; t < step.tp(); t++) {
                    optimizer.add(t, p, gradients.withEmbeddingSync(t, p, reduced.get(p * step.tp() + t)),
                            gradients.shard(), !prefetch);
                }
            }
            previous = optimizer;
            for (int d = 0; d < step.replicas(); d++) {
                perReplica.get(d).add(pipelines.get(d));
            }
        }
        List<PipelineTasks> pipelines = new ArrayList<>();
        for (List<PipelineTasks> steps : perReplica) {
            pipelines.add(PipelineTasks.acrossSteps(steps));
        }
        return new TrainingStep.Built(g.build(), pipelines, firstTasks);
    }

    /**
     * Of a layer's cross-slice gradient reduction, the share the next layer's backward waits for:
     * 0 when XLA pipelines the reductions across the scanned layers ({@link TrainingStep#dcnPipelined});
     * otherwise the attention block's share of the layer's weights. Inside one iteration of the
     * scanned backward the MLP's weight gradients come first and their reduction runs under the
     * attention block's backward, while the attention projections' gradients (QKV last) come at
     * the iteration's end with nothing left to hide under (the reverse of the layer's forward
     * order, as JAX's autodiff emits it; inferred, not measured).
     */
    static double iterationShare(TrainingStep step) {
        if (step.dcnPipelined()) {
            return 0;
        }
        double attention = step.model().attentionParams();
        double layer = step.model().layerMatmulParams(0);
        return layer > 0 ? Math.min(1, attention / layer) : 1;
    }

    /** Replica pipelines the last {@link #build} copied from the first replica's, over all its steps. */
    public int copiedReplicas() {
        return copiedReplicas;
    }

}
