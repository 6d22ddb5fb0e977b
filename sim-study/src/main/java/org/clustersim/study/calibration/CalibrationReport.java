package org.clustersim.study.calibration;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a calibration fitted, written for a person: the constants of each model and, for every
 * measured point, the model against the measurement and the residual (model time minus
 * measured time, over measured time: positive where the model is slower). Every line starts
 * with {@code #}, so that the report followed by the profile is still a valid profile file.
 */
public final class CalibrationReport {
    private CalibrationReport() {
    }

    /** Writes the report for {@code c}. */
    public static void write(Calibration c, PrintWriter out) {
        line(out, "calibrated profile %s from %s", c.name(), c.base().source());
        for (GemmFit f : c.gemm()) {
            gemm(out, f);
        }
        if (!c.attention().isEmpty()) {
            attention(out, c.attention());
        }
        c.memory().ifPresent(m -> {
            out.println("#");
            line(out, "memory: %s TB/s achieved of %s TB/s: streamEfficiency %s", ProfileNumber.plain(m.achievedTBps()),
                    ProfileNumber.plain(m.bandwidthTBps()), ProfileNumber.plain(m.streamEfficiency()));
        });
        for (CollectiveFit f : c.collectives()) {
            collective(out, f);
        }
        out.flush();
    }

    private static void gemm(PrintWriter out, GemmFit f) {
        String id = f.precision().id();
        List<String> sources = new ArrayList<>();
        for (GemmPoint p : f.points()) {
            if (!sources.contains(p.source())) {
                sources.add(p.source());
            }
        }
        out.println("#");
        line(out, "gemm %s: %d points (%s); peak %s TFLOP/s, HBM %s TB/s", id, f.points().size(),
                String.join(", ", sources), ProfileNumber.plain(f.peakTflops()), ProfileNumber.plain(f.bandwidthTBps()));
        line(out, "  time = max(W / %s TFLOP/s, %s W / peak + %s bytes / HBM + %s us), W = 2mnk, bytes = %d(mk+kn+mn)",
                ProfileNumber.plain(f.bestTflops()), ProfileNumber.plain(f.computeFactor()),
                ProfileNumber.plain(f.memoryFactor()), ProfileNumber.plain(f.fixedUs()),
                f.precision().bytesPerElement());
        line(out, "  bestTflops %s (%s), computeFactor %s, memoryFactor %s, fixedUs %s",
                ProfileNumber.plain(f.bestTflops()), f.bestGiven() ? "given" : "largest measured",
                ProfileNumber.plain(f.computeFactor()), ProfileNumber.plain(f.memoryFactor()),
                ProfileNumber.plain(f.fixedUs()));
        line(out, "  %8s %8s %8s %10s %10s %9s", "m", "n", "k", "measured", "model", "residual");
        for (GemmPoint p : f.points()) {
            line(out, "  %8d %8d %8d %10s %10.1f %+8.1f%%", p.m(), p.n(), p.k(), ProfileNumber.plain(p.tflops()),
                    f.modelTflops(p), 100 * f.residual(p));
        }
        GemmPoint worst = f.worst();
        line(out, "  TFLOP/s; residual = model time / measured time - 1: rms %.1f%%, largest %+.1f%% at %s",
                100 * f.rmsResidual(), 100 * f.residual(worst), worst.shape());
        if (f.computeFactor() <= 0 || f.memoryFactor() < 0 || f.fixedUs() < 0) {
            line(out, "  warning: a constant came out negative; the points probably do not span enough shapes");
        }
    }

    private static void attention(PrintWriter out, List<AttentionTable> tables) {
        int points = tables.stream().mapToInt(t -> t.points().size()).sum();
        List<String> sources = new ArrayList<>();
        for (AttentionTable t : tables) {
            for (AttentionPoint p : t.points()) {
                if (!sources.contains(p.source())) {
                    sources.add(p.source());
                }
            }
        }
        out.println("#");
        line(out, "attention: %d tables, %d points (%s); TFLOP/s by sequence length", tables.size(), points,
                String.join(", ", sources));
        for (AttentionTable t : tables) {
            StringBuilder sb = new StringBuilder();
            for (AttentionPoint p : t.points()) {
                sb.append(sb.length() == 0 ? "" : ", ").append(p.seqLen()).append(": ")
                        .append(ProfileNumber.plain(p.tflops()));
            }
            line(out, "  %-32s %s", t.key().describe(), sb);
        }
    }

    private static void collective(PrintWriter out, CollectiveFit f) {
        NcclTestsOutput o = f.output();
        double factor = o.op().busFactor(o.ranks());
        out.println("#");
        line(out, "%s over %d ranks on %d host%s (%s): %d sizes (%s; operation from %s)", o.op().id(), o.ranks(),
                o.hosts().size(), o.hosts().size() == 1 ? "" : "s", o.medium(), o.rows().size(), o.source(), o.opFrom());
        line(out, "  t(S) = %s us + S x %s / %s GB/s", ProfileNumber.plain(f.latencyUs()),
                ProfileNumber.plain(ProfileNumber.fitted(factor)), ProfileNumber.plain(f.busBandwidthGBps()));
        line(out, "  latencyUs %s (the shortest time, at %d B), busBandwidthGBps %s (best, latency taken out, at %d B)",
                ProfileNumber.plain(f.latencyUs()), f.latencyRow().bytes(), ProfileNumber.plain(f.busBandwidthGBps()),
                f.bandwidthRow().bytes());
        line(out, "  %14s %12s %12s %9s", "size (B)", "measured us", "model us", "residual");
        double worst = 0;
        for (NcclTestsOutput.Row r : f.rowsBySize()) {
            line(out, "  %14d %12s %12.2f %+8.1f%%", r.bytes(), ProfileNumber.plain(r.timeUs()), f.timeUs(r.bytes()),
                    100 * f.residual(r));
            worst = Math.abs(f.residual(r)) > Math.abs(worst) ? f.residual(r) : worst;
        }
        line(out, "  residual = model time / measured time - 1; largest %+.1f%%", 100 * worst);
    }

    private static void line(PrintWriter out, String format, Object... args) {
        out.println(String.format(Locale.ROOT, "# " + format, args));
    }
}
