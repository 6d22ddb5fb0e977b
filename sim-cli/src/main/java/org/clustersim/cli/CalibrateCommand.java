package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.clustersim.study.calibration.CalibratedProfile;
import org.clustersim.study.calibration.Calibration;
import org.clustersim.study.calibration.CalibrationReport;
import org.clustersim.study.calibration.GemmPrecision;
import org.clustersim.study.calibration.NcclOp;
import org.clustersim.study.calibration.ProfileYaml;
import org.clustersim.core.input.InputException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim calibrate}: builds a device profile from the user's own measurements (GEMM
 * and attention rates, a streaming bandwidth, nccl-tests sweeps) on top of a base profile, and
 * reports each fit point by point. The report goes to standard output as {@code #} comment
 * lines; the profile goes to {@code -o FILE}, written all-or-nothing, or without {@code -o}
 * after the report, so that the whole output is itself a valid profile file.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Build a device profile from your own measurements: GEMM and attention rates (CSV), an "
                + "achieved memory bandwidth and nccl-tests outputs, on top of a bundled or given base profile.")
public final class CalibrateCommand implements Callable<Integer> {
    @Option(names = "--base", required = true, paramLabel = "NAME|FILE",
            description = "The profile to start from: a bundled one (h100-sxm, ...) or a profile file. It gives the "
                    + "chip's dense peaks and HBM bandwidth, and every section not measured here.")
    String base;

    @Option(names = "--name", paramLabel = "NAME", description = "Name of the calibrated profile (default: the base's).")
    String name;

    @Option(names = "--gemm", paramLabel = "FILE.csv",
            description = "GEMM measurements: columns m, n, k, dtype (bf16|fp8) and seconds or tflops (repeatable).")
    List<Path> gemm = new ArrayList<>();

    @Option(names = "--gemm-best", paramLabel = "DTYPE=TFLOPS",
            description = "The GEMM ceiling of a dtype (e.g. MAMF's bf16=794.5) instead of the fastest point measured; "
                    + "points above it are capped (repeatable).")
    List<String> gemmBest = new ArrayList<>();

    @Option(names = "--attention", paramLabel = "FILE.csv",
            description = "Attention measurements: columns impl, pass, headDim, causal, seqLen and tflops, or seconds "
                    + "with batch and heads (repeatable).")
    List<Path> attention = new ArrayList<>();

    @Option(names = "--memory-bandwidth", paramLabel = "TBPS",
            description = "Achieved streaming bandwidth in TB/s; sets memory.streamEfficiency against the base's "
                    + "memory.bandwidthTBps.")
    Double memoryBandwidth;

    @Option(names = "--nccl", arity = "1..*", paramLabel = "FILE",
            description = "Outputs of nccl-tests programs (all_reduce_perf, all_gather_perf, ...), one operation each.")
    List<Path> nccl = new ArrayList<>();

    @Option(names = "--nccl-op", paramLabel = "OP",
            description = "The operation of nccl-tests files whose header (2.17 and later) does not name it: "
                    + "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, gather, scatter, sendrecv.")
    String ncclOp;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE.yaml",
            description = "Write the profile here (default: standard output, after the report).")
    Path output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (gemm.isEmpty() && attention.isEmpty() && memoryBandwidth == null && nccl.isEmpty()) {
            throw new InputException("nothing to calibrate: expected --gemm, --attention, --memory-bandwidth or "
                    + "--nccl");
        }
        Map<GemmPrecision, Double> best = new EnumMap<>(GemmPrecision.class);
        for (String b : gemmBest) {
            int eq = b.indexOf('=');
            Optional<GemmPrecision> dtype = eq < 0 ? Optional.empty() : GemmPrecision.byId(b.substring(0, eq).strip());
            double tflops = eq < 0 ? -1 : number(b.substring(eq + 1).strip());
            if (dtype.isEmpty() || !(tflops > 0) || best.put(dtype.get(), tflops) != null) {
                throw new InputException("--gemm-best: found '" + b + "', expected DTYPE=TFLOPS with DTYPE "
                        + String.join(" or ", GemmPrecision.ids()) + " (each once) and TFLOPS a number > 0");
            }
        }
        if (memoryBandwidth != null && !(memoryBandwidth > 0 && Double.isFinite(memoryBandwidth))) {
            throw new InputException("--memory-bandwidth: found " + memoryBandwidth + ", expected TB/s > 0");
        }
        Optional<NcclOp> op = Optional.empty();
        if (ncclOp != null) {
            op = NcclOp.byId(ncclOp);
            if (op.isEmpty()) {
                throw new InputException("--nccl-op: found '" + ncclOp + "', expected one of "
                        + String.join(", ", NcclOp.ids()));
            }
        }
        OutputFiles.check("-o", output);
        Calibration c = Calibration.run(new Calibration.Inputs(base, Optional.ofNullable(name), gemm, best, attention,
                Optional.ofNullable(memoryBandwidth), nccl, op));
        String yaml = ProfileYaml.write(CalibratedProfile.of(c));
        PrintWriter out = spec.commandLine().getOut();
        CalibrationReport.write(c, out);
        if (output == null) {
            out.print(yaml);
        } else {
            OutputFiles.write(Map.of(output, o -> o.write(yaml.getBytes(StandardCharsets.UTF_8))));
            out.println("# wrote " + output);
        }
        out.flush();
        return 0;
    }

    private static double number(String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
