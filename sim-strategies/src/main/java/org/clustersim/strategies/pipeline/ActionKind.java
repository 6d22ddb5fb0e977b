package org.clustersim.strategies.pipeline;

/** What a pipeline rank computes for one microbatch on one of its model chunks. */
public enum ActionKind {
    /** Forward pass of the chunk's layers. */
    FORWARD('F', "forward"),
    /** Whole backward pass: input gradient and weight gradient together (Bf = Bi + W). */
    BACKWARD('B', "backward"),
    /** Backward for the input gradient only (Bi; "B" in the zero-bubble paper). */
    BACKWARD_INPUT('B', "backward-input"),
    /** Backward for the weight gradient (W), which nothing downstream waits for. */
    BACKWARD_WEIGHT('W', "backward-weight");

    private final char letter;
    private final String category;

    ActionKind(char letter, String category) {
        this.letter = letter;
        this.category = category;
    }

    /** One-letter label used in task names and ASCII timelines. */
    public char letter() {
        return letter;
    }

    /** Trace category of tasks of this kind. */
    public String category() {
        return category;
    }
}
