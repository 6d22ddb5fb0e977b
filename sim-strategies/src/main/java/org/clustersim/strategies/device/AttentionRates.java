package org.clustersim.strategies.device;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A device's attention-core throughput tables, and the rate for any head dimension, sequence
 * length, mask and pass. Published tables are incomplete (FlashAttention-3's paper gives the
 * backward only without the causal mask; A100 tables give forward and backward only together),
 * so a missing combination is derived and the derivation is stated here rather than invented
 * per device:
 * <ul>
 *   <li>a pass without a table of its own takes the COMBINED table's rate;</li>
 *   <li>a mask without a table takes the other mask's rate scaled by the forward pass's
 *       causal/non-causal ratio at the same head dimension and length (causal kernels lose
 *       the same work-imbalance share in both passes);</li>
 *   <li>head dimensions between tables interpolate linearly in log(d); outside, the nearest.</li>
 * </ul>
 */
public record AttentionRates(List<AttentionCurve> curves) {

    public AttentionRates {
        curves = List.copyOf(curves);
    }

    /** Whether there is any table for this implementation. */
    public boolean covers(AttentionImpl impl) {
        return curves.stream().anyMatch(c -> c.impl() == impl);
    }

    /** Rate (FLOP/s, FlashAttention convention) of one pass of the attention core. */
    public double rate(AttentionImpl impl, AttentionPass pass, int headDim, boolean causal, double seqLen) {
        AttentionPass available = has(impl, pass) ? pass : AttentionPass.COMBINED;
        if (!has(impl, available)) {
            throw new IllegalArgumentException("no " + impl.key() + " attention table for the " + pass.key()
                    + " pass");
        }
        if (hasMask(impl, available, causal)) {
            return rateAt(impl, available, causal, headDim, seqLen);
        }
        double other = rateAt(impl, available, !causal, headDim, seqLen);
        AttentionPass ref = hasMask(impl, AttentionPass.FORWARD, true) && hasMask(impl, AttentionPass.FORWARD, false)
                ? AttentionPass.FORWARD : null;
        if (ref == null) {
            return other;
        }
        return other * rateAt(impl, ref, causal, headDim, seqLen) / rateAt(impl, ref, !causal, headDim, seqLen);
    }

    private boolean has(AttentionImpl impl, AttentionPass pass) {
        return curves.stream().anyMatch(c -> c.impl() == impl && c.pass() == pass);
    }

    private boolean hasMask(AttentionImpl impl, AttentionPass pass, boolean causal) {
        return curves.stream().anyMatch(c -> c.impl() == impl && c.pass() == pass && c.causal() == causal);
    }

    private double rateAt(AttentionImpl impl, AttentionPass pass, boolean causal, int headDim, double seqLen) {
        List<AttentionCurve> set = new ArrayList<>();
        TreeSet<Integer> dims = new TreeSet<>();
        for (AttentionCurve c : curves) {
            if (c.impl() == impl && c.pass() == pass && c.causal() == causal) {
                set.add(c);
                dims.add(c.headDim());
            }
        }
        Integer lo = dims.floor(headDim);
        Integer hi = dims.ceiling(headDim);
        if (lo == null) {
            return curve(set, hi).rate(seqLen);
        }
        if (hi == null || lo.equals(hi)) {
            return curve(set, lo).rate(seqLen);
        }
        double t = Math.log((double) headDim / lo) / Math.log((double) hi / lo);
        double a = curve(set, lo).rate(seqLen);
        return a + t * (curve(set, hi).rate(seqLen) - a);
    }

    private static AttentionCurve curve(List<AttentionCurve> set, int headDim) {
        for (AttentionCurve c : set) {
            if (c.headDim() == headDim) {
                return c;
            }
        }
        throw new IllegalStateException("no curve for d=" + headDim);
    }
}
