package org.clustersim.study.calibration;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.clustersim.core.input.InputError;

/**
 * A collective's cost on one medium and rank count, fitted to an nccl-tests sweep:
 * <pre>
 *   t(S) = latencyUs + S x busFactor(op, n) / busBandwidth
 * </pre>
 * with S the size nccl-tests prints and busFactor its convention (all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter and all-to-all (n-1)/n; broadcast and reduce 1), so that
 * busBandwidth is directly comparable with nccl-tests' busbw column.
 *
 * <p>The two constants are the model's two asymptotes, each read where the other term is
 * negligible, rather than a least-squares compromise: latencyUs is the shortest out-of-place
 * time measured (a small message, whose transfer at the fitted bandwidth must be under a tenth
 * of it), and busBandwidth is the best bus bandwidth with that latency taken out,
 * S x busFactor / (t - latency), over the sizes where latency is at most a tenth of the time. A
 * two-constant line cannot follow NCCL's mid-size transition (protocol changes from LL to LL128
 * to Simple, channels ramping up): least squares over all sizes bends both ends to split that
 * error, leaving the latency and the bandwidth both wrong where they are meant to be exact (on
 * the published 8 x H100 NVLS all-reduce, 17.5 us and 418 GB/s against 13.7 us and 480 GB/s).
 * Here both ends are exact and the mid-size error is reported per size, the model being faster
 * than the measurement there. Both constants are rounded to four significant digits, and the
 * residuals are those of the rounded constants.
 *
 * @param output            the measurements
 * @param latencyUs         the latency, microseconds
 * @param busBandwidthGBps  the bus bandwidth, GB/s (1e9 bytes per second, as nccl-tests)
 * @param latencyRow        the row the latency was read from
 * @param bandwidthRow      the row the bandwidth was read from
 */
public record CollectiveFit(NcclTestsOutput output, double latencyUs, double busBandwidthGBps,
                            NcclTestsOutput.Row latencyRow, NcclTestsOutput.Row bandwidthRow) {
    /** A latency under this share of a message's time counts as negligible (and likewise a transfer). */
    public static final double NEGLIGIBLE = 0.1;

    /** Fits {@code output}; empty when its sizes do not reach both regimes (the reason is in {@code errors}). */
    public static Optional<CollectiveFit> fit(NcclTestsOutput output, List<InputError> errors) {
        double factor = output.op().busFactor(output.ranks());
        List<NcclTestsOutput.Row> rows = output.rows().stream()
                .sorted(Comparator.comparingLong(NcclTestsOutput.Row::bytes)).toList();
        NcclTestsOutput.Row shortest = rows.get(0);
        for (NcclTestsOutput.Row r : rows) {
            if (r.timeUs() < shortest.timeUs()) {
                shortest = r;
            }
        }
        double latency = shortest.timeUs();
        NcclTestsOutput.Row best = null;
        double bandwidth = 0;
        for (NcclTestsOutput.Row r : rows) {
            if (latency <= NEGLIGIBLE * r.timeUs()) {
                double b = r.bytes() * factor / (r.timeUs() - latency) / 1e3;
                if (b > bandwidth) {
                    bandwidth = b;
                    best = r;
                }
            }
        }
        NcclTestsOutput.Row largest = rows.get(rows.size() - 1);
        if (best == null) {
            errors.add(InputError.at(output.source(), largest.line(), "size", "found at most " + largest.bytes()
                    + " bytes in " + ProfileNumber.plain(largest.timeUs()) + " us against the " + ProfileNumber.plain(
                    latency) + " us of the fastest message, expected a message large enough for the latency to be "
                    + "under a tenth of its time (run up to -e 1G or more)"));
            return Optional.empty();
        }
        double transfer = shortest.bytes() * factor / (bandwidth * 1e3);
        if (transfer > NEGLIGIBLE * latency) {
            errors.add(InputError.at(output.source(), shortest.line(), "size", "found the shortest time, "
                    + ProfileNumber.plain(latency) + " us, at " + shortest.bytes() + " bytes, which take "
                    + ProfileNumber.plain(ProfileNumber.fitted(transfer)) + " us to transfer at the fitted "
                    + ProfileNumber.plain(ProfileNumber.fitted(bandwidth)) + " GB/s, expected a latency-bound "
                    + "message (transfer under a tenth of the time; run from -b 8)"));
            return Optional.empty();
        }
        return Optional.of(new CollectiveFit(output, ProfileNumber.fitted(latency), ProfileNumber.fitted(bandwidth),
                shortest, best));
    }

    /** The model's time for {@code bytes}, microseconds. */
    public double timeUs(long bytes) {
        return latencyUs + bytes * output.op().busFactor(output.ranks()) / (busBandwidthGBps * 1e3);
    }

    /** (model time - measured time) / measured time. */
    public double residual(NcclTestsOutput.Row r) {
        return (timeUs(r.bytes()) - r.timeUs()) / r.timeUs();
    }

    /** The rows sorted by size. */
    public List<NcclTestsOutput.Row> rowsBySize() {
        return output.rows().stream().sorted(Comparator.comparingLong(NcclTestsOutput.Row::bytes)).toList();
    }
}
