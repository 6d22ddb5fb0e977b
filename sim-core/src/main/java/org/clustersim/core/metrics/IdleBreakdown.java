package org.clustersim.core.metrics;

import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

import org.clustersim.core.engine.Timeline;

/**
 * What one device's compute stream waited for while it stood idle within its window of a step,
 * read from the simulated timeline (docs/metrics.md, "Idle time"): each idle interval is traced
 * back along the chain of tasks that held up the compute task ending it, and each stretch of the
 * interval is charged to the task that was running on that chain at the time:
 * <ul>
 * <li><b>pipeline bubble</b>: computation of another pipeline stage (the device waited, through
 *     a send/recv, for an earlier or later stage to produce its input or gradient);</li>
 * <li><b>exposed communication</b>: a transfer (collective, point-to-point, host or shard copy)
 *     not hidden by compute, by traffic kind;</li>
 * <li><b>other waits</b>: anything else: computation of other devices of the same stage
 *     (stragglers, imbalance), other ranks' optimizer steps, time no task explains.</li>
 * </ul>
 * The three add up to the idle time exactly, and with one pipeline stage the bubble is 0.
 *
 * @param device           device index
 * @param idleNs           window length minus the time a compute stream of the device was busy
 * @param pipelineBubbleNs idle time spent waiting on another stage's computation
 * @param exposedCommNs    idle time spent waiting on transfers
 * @param otherWaitNs      the rest of the idle time
 * @param exposedByKind    {@code exposedCommNs} by traffic kind (tp-comm, pp-p2p, dp-comm, ...): adds up to it
 */
public record IdleBreakdown(int device, long idleNs, long pipelineBubbleNs, long exposedCommNs, long otherWaitNs,
                            Map<String, Long> exposedByKind) {

    public IdleBreakdown {
        exposedByKind = Map.copyOf(exposedByKind);
    }

    /**
     * Splits every device's idle time within its window of step {@code n} ({@link StepWindows}).
     *
     * @param stageOf the pipeline stage of each device index (all 0 without pipeline parallelism; negative for a
     *                device outside the pipeline, whose computation is never a bubble)
     */
    public static List<IdleBreakdown> of(StepWindows steps, int n, IntUnaryOperator stageOf) {
        Timeline timeline = steps.timeline();
        int devices = timeline.graph().devices().size();
        IdleBreakdown[] out = new IdleBreakdown[devices];
        WaitWalk walk = new WaitWalk(timeline, stageOf);
        java.util.stream.IntStream.range(0, devices).parallel()
                .forEach(d -> out[d] = walk.measure(d, steps.windowStart(d, n), steps.windowEnd(d, n)));
        return List.of(out);
    }

    /** Splits every device's idle time over a run of one step. */
    public static List<IdleBreakdown> of(Timeline timeline, IntUnaryOperator stageOf) {
        return of(StepWindows.single(timeline), 0, stageOf);
    }
}
