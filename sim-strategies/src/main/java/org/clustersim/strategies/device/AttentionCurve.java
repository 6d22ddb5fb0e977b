package org.clustersim.strategies.device;

import java.util.Arrays;

/**
 * Measured attention-core throughput of one implementation, pass, head dimension and mask
 * against sequence length, in the FlashAttention benchmarks' FLOP convention (forward 4 b s^2
 * heads d, halved when causal; backward 2.5 times the forward). Between measured lengths the
 * rate is interpolated linearly in log(s); outside them it stays at the nearest measurement.
 *
 * @param impl       implementation
 * @param pass       forward, backward, or both together
 * @param headDim    head dimension d
 * @param causal     causal mask
 * @param seqLens    measured sequence lengths, ascending
 * @param flopsPerS  rate at each length, FLOP/s
 */
public record AttentionCurve(AttentionImpl impl, AttentionPass pass, int headDim, boolean causal, double[] seqLens,
                             double[] flopsPerS) {

    public AttentionCurve {
        if (seqLens.length == 0 || seqLens.length != flopsPerS.length) {
            throw new IllegalArgumentException("an attention curve needs one rate per sequence length");
        }
        for (int i = 1; i < seqLens.length; i++) {
            if (!(seqLens[i] > seqLens[i - 1])) {
                throw new IllegalArgumentException("sequence lengths must ascend");
            }
        }
        seqLens = seqLens.clone();
        flopsPerS = flopsPerS.clone();
    }

    /** Rate at sequence length s, FLOP/s. */
    public double rate(double s) {
        int n = seqLens.length;
        if (s <= seqLens[0]) {
            return flopsPerS[0];
        }
        if (s >= seqLens[n - 1]) {
            return flopsPerS[n - 1];
        }
        int i = 1;
        while (seqLens[i] < s) {
            i++;
        }
        double t = Math.log(s / seqLens[i - 1]) / Math.log(seqLens[i] / seqLens[i - 1]);
        return flopsPerS[i - 1] + t * (flopsPerS[i] - flopsPerS[i - 1]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AttentionCurve c && impl == c.impl && pass == c.pass && headDim == c.headDim
                && causal == c.causal && Arrays.equals(seqLens, c.seqLens) && Arrays.equals(flopsPerS, c.flopsPerS);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * impl.hashCode() + pass.hashCode()) + Arrays.hashCode(seqLens) + headDim;
    }

    @Override
    public String toString() {
        return impl.key() + " " + pass.key() + " d=" + headDim + (causal ? " causal " : " ")
                + Arrays.toString(seqLens) + " -> " + Arrays.toString(flopsPerS);
    }
}
