package org.clustersim.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The idle time of every GPU split into pipeline bubble, exposed communication and other waits
 * (docs/metrics.md, "Idle time"), on simulated steps: the parts add up, a layout without
 * pipeline parallelism has no bubble, and slower links show as exposed communication.
 */
class IdleSplitTest {
    @TempDir
    Path dir;

    /** A 1F1B pipeline of 4 stages with tensor and data parallelism over two servers. */
    private static final String PIPELINE = """
            cluster: {preset: dgx-h100, nodes: 2%s}
            model: {preset: gpt3-1.3b, layers: 8}
            parallelism: {tp: 2, pp: 4, dp: 2}
            schedule: {kind: 1f1b}
            training: {globalBatch: 16, microBatch: 1, seqLen: 2048}
            """;

    /** No pipeline: tensor and data parallelism on one server. */
    private static final String NO_PIPELINE = """
            cluster: {preset: dgx-h100, nodes: 1}
            model: {preset: gpt3-1.3b, layers: 8}
            parallelism: {tp: 2, dp: 4}
            training: {globalBatch: 16, microBatch: 1, seqLen: 2048}
            """;

    /** Links ten times slower than the DGX's (NVLink 45 GB/s, NICs 5 GB/s). */
    private static final String SLOW_LINKS = ", nvlinkBandwidthGBps: 45, nicBandwidthGBps: 5";

    private StepFigures figures(String name, String text) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, text);
        Scenario s = new ScenarioReader().read(file);
        return SimulatedStep.of(s, s.trainingStep(), false).figures();
    }

    /** Every GPU: busy + bubble + exposed + other = the step, exposed by kind adds up; the means too. */
    private static void assertAddsUp(StepFigures f) {
        for (StepFigures.Device d : f.devices()) {
            assertEquals(f.stepTimeNs(), d.computeBusyNs() + d.computeIdleNs(), d.name());
            assertEquals(d.computeIdleNs(), d.pipelineBubbleNs() + d.exposedCommNs() + d.otherWaitNs(), d.name());
            assertEquals(d.exposedCommNs(), d.exposedByKind().values().stream().mapToLong(Long::longValue).sum(),
                    d.name());
            assertTrue(d.pipelineBubbleNs() >= 0 && d.exposedCommNs() >= 0 && d.otherWaitNs() >= 0, d.toString());
        }
        assertEquals(f.idleFraction(), f.pipelineBubbleFraction() + f.exposedCommFraction() + f.otherWaitFraction(),
                1e-12);
    }

    private static double meanNs(StepFigures f, java.util.function.ToLongFunction<StepFigures.Device> part) {
        return f.devices().stream().mapToLong(part).average().orElseThrow();
    }

    @Test
    void aPipelinesIdleTimeIsBubbleExposedCommunicationAndOtherWaits() throws IOException {
        StepFigures f = figures("pipeline", PIPELINE.formatted(""));
        assertAddsUp(f);
        assertTrue(f.pipelineBubbleFraction() > 0.05, "4 stages, 8 microbatches: " + f.pipelineBubbleFraction());
        assertTrue(f.exposedCommFraction() > 0, "tensor-parallel collectives are exposed");
        assertTrue(f.exposedByKindNs().containsKey("tp-comm") && f.exposedByKindNs().containsKey("dp-comm"),
                f.exposedByKindNs().toString());
        for (StepFigures.Device d : f.devices()) {
            assertTrue(d.pipelineBubbleNs() > 0, "every stage waits for another at the fill or the drain: " + d);
        }
    }

    @Test
    void withoutPipelineParallelismThereIsNoBubble() throws IOException {
        StepFigures f = figures("no-pipeline", NO_PIPELINE);
        assertAddsUp(f);
        assertEquals(0.0, f.pipelineBubbleFraction());
        for (StepFigures.Device d : f.devices()) {
            assertEquals(0, d.pipelineBubbleNs(), d.name());
        }
        assertTrue(f.exposedCommFraction() > 0, "its idle time is the collectives it waits for: " + f.idleFraction());
    }

    @Test
    void slowerLinksRaiseExposedCommunicationNotTheBubble() throws IOException {
        StepFigures fast = figures("fast", PIPELINE.formatted(""));
        StepFigures slow = figures("slow", PIPELINE.formatted(SLOW_LINKS));
        assertAddsUp(slow);
        double moreIdle = meanNs(slow, StepFigures.Device::computeIdleNs) - meanNs(fast, StepFigures.Device::computeIdleNs);
        double moreExposed = meanNs(slow, StepFigures.Device::exposedCommNs)
                - meanNs(fast, StepFigures.Device::exposedCommNs);
        double moreBubble = meanNs(slow, StepFigures.Device::pipelineBubbleNs)
                - meanNs(fast, StepFigures.Device::pipelineBubbleNs);
        assertTrue(moreIdle > 0.1 * fast.stepTimeNs(), "ten times slower links lengthen the step: " + moreIdle);
        assertTrue(moreExposed > 0.95 * moreIdle, "the extra idle time is exposed communication: " + moreExposed
                + " of " + moreIdle);
        // the other stages compute as long as before: the bubble does not grow (it may shrink a little
        // where a slower transfer now covers time the chain spent in another stage's compute)
        assertTrue(moreBubble <= 0.02 * meanNs(fast, StepFigures.Device::pipelineBubbleNs),
                "bubble " + moreBubble + " ns more, exposed " + moreExposed + " of " + moreIdle);
    }
}
