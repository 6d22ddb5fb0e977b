package org.clustersim.strategies.pipeline;

/**
 * One entry of a pipeline rank's program: a single action, or a forward and a backward of
 * different microbatches run together as one overlapped unit (DualPipe's F&amp;B pair).
 */
public sealed interface PipelineOp permits PipelineOp.Action, PipelineOp.Overlapped {

    /**
     * One action.
     *
     * @param kind       what is computed
     * @param microbatch microbatch index, 0-based over the whole step
     * @param chunk      model chunk on this rank, 0-based
     */
    record Action(ActionKind kind, int microbatch, int chunk) implements PipelineOp {
        @Override
        public String toString() {
            String k = kind == ActionKind.BACKWARD_INPUT ? "Bi" : String.valueOf(kind.letter());
            return k + microbatch + (chunk == 0 ? "" : "c" + chunk);
        }
    }

    /**
     * A forward and a full backward executed as one overlapped unit whose time is F&amp;B.
     *
     * @param forward  the forward part
     * @param backward the backward part (full backward)
     */
    record Overlapped(Action forward, Action backward) implements PipelineOp {
        public Overlapped {
            if (forward.kind() != ActionKind.FORWARD || backward.kind() != ActionKind.BACKWARD) {
                throw new IllegalArgumentException("an overlapped pair is a forward and a full backward");
            }
        }

        @Override
        public String toString() {
            return forward + "&" + backward;
        }
    }

    static Action f(int microbatch, int chunk) {
        return new Action(ActionKind.FORWARD, microbatch, chunk);
    }

    static Action b(int microbatch, int chunk) {
        return new Action(ActionKind.BACKWARD, microbatch, chunk);
    }

    static Action bi(int microbatch, int chunk) {
        return new Action(ActionKind.BACKWARD_INPUT, microbatch, chunk);
    }

    static Action w(int microbatch, int chunk) {
        return new Action(ActionKind.BACKWARD_WEIGHT, microbatch, chunk);
    }
}
