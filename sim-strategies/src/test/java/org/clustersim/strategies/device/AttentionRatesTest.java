package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class AttentionRatesTest {
    static final AttentionRates H100 = DeviceProfiles.bundled("h100-sxm").attention();

    @Test
    void measuredPointsAreReturnedAsPublished() {
        // FlashAttention-3 paper fig. 5: cuDNN forward, d = 128, causal, 2k: 484 TFLOP/s; FA3 16k: 616
        assertEquals(484e12, H100.rate(AttentionImpl.CUDNN, AttentionPass.FORWARD, 128, true, 2048), 1);
        assertEquals(616e12, H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 128, true, 16384), 1);
        // beyond the measured lengths the nearest measurement holds
        assertEquals(616e12, H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 128, true, 131072), 1);
    }

    @Test
    void lengthsBetweenMeasurementsInterpolateInLogLength() {
        // 2k -> 16k is three octaves; 4k is one third of the way: 484 + (539 - 484) / 3
        assertEquals(484e12 + (539e12 - 484e12) / 3,
                H100.rate(AttentionImpl.CUDNN, AttentionPass.FORWARD, 128, true, 4096), 1e6);
    }

    @Test
    void aMissingCausalBackwardScalesTheNonCausalByTheForwardsRatio() {
        double nonCausal = H100.rate(AttentionImpl.CUDNN, AttentionPass.BACKWARD, 128, false, 2048);
        assertEquals(465e12, nonCausal, 1);
        double causal = H100.rate(AttentionImpl.CUDNN, AttentionPass.BACKWARD, 128, true, 2048);
        assertEquals(465e12 * 484 / 617, causal, 1e6);
    }

    @Test
    void headDimensionsBetweenTablesInterpolateInLogDimension() {
        double d64 = H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 64, false, 2048);
        double d128 = H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 128, false, 2048);
        double d96 = H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 96, false, 2048);
        double t = Math.log(96.0 / 64) / Math.log(2);
        assertEquals(d64 + t * (d128 - d64), d96, 1e6);
        assertEquals(H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 256, false, 2048),
                H100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 512, false, 2048), 1, "clamped above 256");
    }

    @Test
    void aPassWithoutItsOwnTableTakesTheCombinedOne() {
        AttentionRates a100 = DeviceProfiles.bundled("a100-sxm-80gb").attention();
        double combined = a100.rate(AttentionImpl.FLASH2, AttentionPass.COMBINED, 64, true, 16384);
        assertEquals(171e12, combined, 1);
        assertEquals(combined, a100.rate(AttentionImpl.FLASH2, AttentionPass.FORWARD, 64, true, 16384), 1);
        assertEquals(combined, a100.rate(AttentionImpl.FLASH2, AttentionPass.BACKWARD, 64, true, 16384), 1);
        assertTrue(!a100.covers(AttentionImpl.FLASH3));
        assertThrows(IllegalArgumentException.class,
                () -> a100.rate(AttentionImpl.FLASH3, AttentionPass.FORWARD, 64, true, 2048));
    }

    @Test
    void curvesMustAscendInLength() {
        assertThrows(IllegalArgumentException.class, () -> new AttentionCurve(AttentionImpl.FLASH2,
                AttentionPass.FORWARD, 64, false, new double[] {2048, 512}, new double[] {1, 2}));
        assertEquals(1, new AttentionRates(List.of(new AttentionCurve(AttentionImpl.FLASH2, AttentionPass.FORWARD,
                64, false, new double[] {512}, new double[] {1e12}))).curves().size());
    }
}
