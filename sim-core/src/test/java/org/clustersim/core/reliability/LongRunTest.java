package org.clustersim.core.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class LongRunTest {
    static final double DAY = 86_400;

    /** Llama 3's job: 16,384 GPUs on 2,048 hosts, 49,152 cables, 1,600 switches, for 54 days. */
    static LongRun llama3(double intervalS, double checkpointS, double restartS) {
        return new LongRun(54 * DAY, intervalS, checkpointS, restartS, FailureRates.of(16_384, 2_048, 49_152, 1_600,
                FailureRates.GPU_MTBF_H, FailureRates.HOST_MTBF_H, FailureRates.LINK_MTBF_H,
                FailureRates.SWITCH_MTBF_H));
    }

    static double meanEffective(LongRun run, int n, long seed) {
        return run.replicate(n, seed).stream().mapToDouble(LongRun.Outcome::effectiveFraction).average().orElseThrow();
    }

    @Test
    void aSixteenThousandGpuJobLosesAboutATenthOfItsTime() {
        LongRun base = llama3(1800, 30, 300);
        List<LongRun.Outcome> runs = base.replicate(20, 1);
        double interruptions = runs.stream().mapToLong(LongRun.Outcome::interruptions).average().orElseThrow();
        assertTrue(interruptions > 400 && interruptions < 500, "interruptions " + interruptions);
        double effective = meanEffective(base, 20, 1);
        assertTrue(effective > 0.85 && effective < 0.95, "effective training time " + effective);
        // every second of the run is accounted for
        LongRun.Outcome o = runs.get(0);
        assertEquals(54 * DAY, o.trainedS() + o.checkpointingS() + o.restartingS() + o.lostS(), 1e-3);
        // slower restarts cost more, and so do checkpoints far from the best interval
        assertTrue(meanEffective(llama3(1800, 30, 900), 20, 1) < effective - 0.02);
        assertTrue(meanEffective(llama3(4 * 3600, 30, 300), 20, 1) < effective - 0.02);
        assertTrue(meanEffective(llama3(120, 30, 300), 20, 1) < effective - 0.02);
    }

    @Test
    void theBestIntervalFoundBySweepingAgreesWithYoungAndDaly() {
        LongRun base = llama3(1800, 30, 300);
        double youngDaly = base.youngDalyIntervalS();
        double best = 0;
        double bestEffective = -1;
        for (double f = 0.4; f <= 2.5; f *= 1.05) {
            double e = meanEffective(base.withInterval(f * youngDaly), 40, 11);
            if (e > bestEffective) {
                bestEffective = e;
                best = f * youngDaly;
            }
        }
        assertEquals(youngDaly, best, 0.2 * youngDaly, "swept optimum " + best + " s vs sqrt(2 C M) " + youngDaly);
    }

    @Test
    void withoutFailuresOnlyCheckpointsCostTime() {
        LongRun quiet = new LongRun(DAY, 3600, 60, 300, List.of(new FailureClass("gpu", 0, 1)));
        LongRun.Outcome o = quiet.simulate(new SplittableRandom(1));
        assertEquals(0, o.interruptions());
        assertEquals(0, o.lostS());
        // 24 hours of 3600 s training + 60 s saving: 23 full cycles and 2,220 s of training
        assertEquals(23 * 60, o.checkpointingS(), 1e-6);
        assertEquals(DAY - 23 * 60, o.trainedS(), 1e-6);
    }
}
