package org.clustersim.strategies.collective;

import java.util.List;

import org.clustersim.strategies.device.CollectiveMeasurement;
import org.clustersim.topology.CommTuning;
import org.clustersim.topology.Topology;

/**
 * Lays a device profile's fitted collective constants (its {@code collectives} entries, what
 * {@code clustersim calibrate} fits to nccl-tests: {@code t(S) = latency + S busFactor /
 * busBandwidth}) over the NCCL tuning constants of a machine, so that the network model runs the
 * measured collective as measured and a user profile with its own nccl-tests fits moves the
 * model with them. NCCL's protocol constants (src/graph/tuning.cc) stay the shape of the model:
 * the fits set the two things one nccl-tests sweep determines, per all-reduce inside one
 * scale-up domain ({@code op: all_reduce, medium: nvlink}).
 * <ul>
 *   <li>Bus bandwidth: the rate of the algorithm NCCL runs large messages with there. With
 *       in-switch reduction (NVLS) each GPU's link carries S each way, so busbw = 2(n-1)/n x
 *       NVLS's share of the line rate; otherwise a ring, whose busbw is its share of the line
 *       rate (the bulk protocol at full efficiency).</li>
 *   <li>Latency: the time of the smallest message. NCCL's tuning model leaves out what every
 *       call costs besides its algorithm steps (kernel launch, proxy start), and nccl-tests'
 *       smallest time includes it; so every algorithm's fixed cost per call (each protocol's
 *       base latency, NVLS's two steps) moves by what the model's contention-free time for the
 *       smallest message differs from the fit. The protocol chosen for it stays the cheapest and
 *       the smallest all-reduce takes the fitted latency; per-step latencies and bandwidths stay
 *       NCCL's.</li>
 * </ul>
 * Fits of other operations and of the network medium are recorded (calibrate reports them) but
 * not used: one all-reduce sweep does not separate NIC efficiency from the ring's node count.
 * A fit whose ranks do not fit in one scale-up domain of the topology is left out as well.
 */
public final class FittedCommTuning {
    /** The smallest message nccl-tests' default sweep (-b 8) measures. */
    static final long SMALLEST_BYTES = 8;

    private FittedCommTuning() {
    }

    /** {@code topology} with its collective constants fitted to {@code fits} (itself when none applies). */
    public static Topology over(Topology topology, List<CollectiveMeasurement> fits) {
        Topology fitted = topology;
        for (CollectiveMeasurement f : fits) {
            if (!f.op().equals("all_reduce") || !f.medium().equals("nvlink") || f.ranks() > topology.deviceCount()) {
                continue;
            }
            int[] devices = new int[f.ranks()];
            for (int i = 0; i < devices.length; i++) {
                devices[i] = i;
            }
            CommGroup group = new CommGroup(devices);
            if (!group.singleNode(topology)) {
                continue;
            }
            CommTuning t = fitted.tuning();
            double line = topology.route(0, 1).links().get(0).bandwidthBytesPerS();
            double busFactor = CollectiveOp.ALL_REDUCE.busBandwidthFactor(f.ranks());
            t = t.nvlsCapable()
                    ? new CommTuning(t.nvlinkEfficiency(), t.netEfficiency(), t.ll(), t.ll128(), t.simple(), true,
                            f.busBytesPerS() / busFactor / line, t.nvlsStepNs())
                    : new CommTuning(f.busBytesPerS() / line / t.simple().efficiency(), t.netEfficiency(), t.ll(),
                            t.ll128(), t.simple(), false, t.nvlsEfficiency(), t.nvlsStepNs());
            fitted = topology.withTuning(t);
            Collectives.Choice smallest = Collectives.plan("auto", CollectiveOp.ALL_REDUCE, group, SMALLEST_BYTES,
                    fitted);
            long shift = Math.round(f.latencyNs()) - smallest.estimateNs();
            fitted = topology.withTuning(shifted(t, shift));
        }
        return fitted;
    }

    /** {@code t} with every algorithm's fixed cost per call moved by {@code shiftNs} (never below zero). */
    private static CommTuning shifted(CommTuning t, long shiftNs) {
        return new CommTuning(t.nvlinkEfficiency(), t.netEfficiency(), shifted(t.ll(), shiftNs),
                shifted(t.ll128(), shiftNs), shifted(t.simple(), shiftNs), t.nvlsCapable(), t.nvlsEfficiency(),
                Math.max(0, t.nvlsStepNs() + shiftNs / 2));
    }

    private static CommTuning.Protocol shifted(CommTuning.Protocol p, long shiftNs) {
        return new CommTuning.Protocol(Math.max(0, p.baseNs() + shiftNs), p.nvlinkStepNs(), p.netStepNs(),
                p.efficiency());
    }
}
