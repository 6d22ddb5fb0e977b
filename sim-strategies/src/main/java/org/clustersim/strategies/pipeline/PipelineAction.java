package org.clustersim.strategies.pipeline;

/**
 * One step in a pipeline rank's program.
 *
 * @param kind       forward or backward
 * @param microbatch microbatch index, 0-based
 */
public record PipelineAction(ActionKind kind, int microbatch) {
    public static PipelineAction forward(int microbatch) {
        return new PipelineAction(ActionKind.FORWARD, microbatch);
    }

    public static PipelineAction backward(int microbatch) {
        return new PipelineAction(ActionKind.BACKWARD, microbatch);
    }

    @Override
    public String toString() {
        return kind.letter() + microbatch;
    }
}
