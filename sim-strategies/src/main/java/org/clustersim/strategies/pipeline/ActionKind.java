package org.clustersim.strategies.pipeline;

/** What a pipeline rank computes for one microbatch. */
public enum ActionKind {
    /** Forward pass of the rank's layers. */
    FORWARD("F", "forward"),
    /** Whole backward pass: input gradient and weight gradient together. */
    BACKWARD("B", "backward");

    private final String letter;
    private final String category;

    ActionKind(String letter, String category) {
        this.letter = letter;
        this.category = category;
    }

    /** One-letter label used in task names and ASCII timelines. */
    public String letter() {
        return letter;
    }

    /** Trace category of tasks of this kind. */
    public String category() {
        return category;
    }
}
