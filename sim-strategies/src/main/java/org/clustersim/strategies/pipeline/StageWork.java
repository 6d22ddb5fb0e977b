package org.clustersim.strategies.pipeline;

import org.clustersim.core.engine.TaskGraph;

/**
 * How a pipeline rank runs one action: a single compute task for schedule studies, or, for a
 * tensor-parallel rank, a chain of per-layer compute tasks and TP collectives across its
 * devices. {@link PipelineProgram} wires the chains together: data arriving for an action
 * waits at its first task, data it produces leaves from its last.
 */
public interface StageWork {

    /**
     * The tasks of one emitted action.
     *
     * @param first     the task that waits for the action's inputs
     * @param last      the task whose end produces its outputs
     * @param gradReady for a backward or weight-gradient action, the tasks at whose end each part
     *                  of the stage's weight gradients is complete, in the order they complete
     *                  (empty otherwise)
     * @param moves     layers' activations copied to or from host memory by the action
     */
    record Emitted(int first, int last, int[] gradReady, java.util.List<HostMove> moves) {
        /** An action that moves no activations to or from the host. */
        public Emitted(int first, int last, int[] gradReady) {
            this(first, last, gradReady, java.util.List.of());
        }
    }

    /**
     * One layer's activations counted apart from its stage's (CPU activation offload): made when
     * the layer's forward starts, gone from the GPU when their copy to the host ends, back when
     * the copy to the GPU starts, freed when the layer's backward ends.
     *
     * @param task     the task at whose start the bytes are allocated, or at whose end they are freed
     * @param layer    the transformer layer whose saved activations these are
     * @param allocate true: allocated at the task's start; false: freed at its end
     */
    record HostMove(int task, int layer, boolean allocate) {
    }

    /** Emits one action of pipeline rank {@code rank} (stage {@code stage}) on {@code devices}. */
    Emitted emit(TaskGraph.Builder graph, int[] devices, int rank, int stage, PipelineOp.Action action, String label);

    /**
     * An overlapped pair's two halves: the forward's tasks and the backward's (the same span for
     * both when the pair runs as one task).
     */
    record Overlap(Emitted forward, Emitted backward) {
    }

    /** Emits the overlapped forward+backward {@code pair}, its halves at stages forwardStage and backwardStage. */
    Overlap emitOverlapped(TaskGraph.Builder graph, int[] devices, int rank, PipelineOp.Overlapped pair,
                           int forwardStage, int backwardStage, String label);
}
