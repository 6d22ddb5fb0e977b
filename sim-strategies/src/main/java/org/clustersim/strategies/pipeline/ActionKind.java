package org.clustersim.strategies.pipeline;

import org.clustersim.core.engine.TaskTag;

/** What a pipeline rank computes for one microbatch on one of its model chunks. */
public enum ActionKind {
    /** Forward pass of the chunk's layers. */
    FORWARD('F', TaskTag.Pass.FORWARD),
    /** Whole backward pass: input gradient and weight gradient together (Bf = Bi + W). */
    BACKWARD('B', TaskTag.Pass.BACKWARD),
    /** Backward for the input gradient only (Bi; "B" in the zero-bubble paper). */
    BACKWARD_INPUT('B', TaskTag.Pass.BACKWARD_INPUT),
    /** Backward for the weight gradient (W), which nothing downstream waits for. */
    BACKWARD_WEIGHT('W', TaskTag.Pass.BACKWARD_WEIGHT);

    private final char letter;
    private final TaskTag.Pass pass;

    ActionKind(char letter, TaskTag.Pass pass) {
        this.letter = letter;
        this.pass = pass;
    }

    /** One-letter label used in task names and ASCII timelines. */
    public char letter() {
        return letter;
    }

    /** The pass tasks of this kind are tagged with (their trace category is its). */
    public TaskTag.Pass pass() {
        return pass;
    }
}
