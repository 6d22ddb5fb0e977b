package org.clustersim.study.goodput;

/**
 * How the study picks the training time between checkpoints: a fixed interval, Young/Daly's
 * sqrt(2 x checkpoint cost x MTBF), or the best of a sweep around it.
 */
public sealed interface CheckpointInterval {

    /** @param seconds training time between checkpoints, &gt; 0 */
    record Fixed(double seconds) implements CheckpointInterval {
    }

    /** Young/Daly's interval for the job's MTBF. */
    record YoungDaly() implements CheckpointInterval {
    }

    /** The best of {@link Replications#SWEEP_POINTS} intervals from 1/4 to 4 times Young/Daly's. */
    record Sweep() implements CheckpointInterval {
    }
}
