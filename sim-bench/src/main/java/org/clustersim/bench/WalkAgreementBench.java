package org.clustersim.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.clustersim.study.plan.AgreementProblem;
import org.clustersim.study.plan.WalkAgreement;
import org.clustersim.study.plan.WalkAgreement.Figures;
import org.clustersim.study.plan.WalkAgreement.Row;

/**
 * Benchmark: the step walk (issue 33's estimate without the event simulation) against the
 * simulation on random valid layouts, GPU problems from the plan's wide space and TPU problems
 * from MaxText meshes, each drawn with one seed. Prints per problem and overall the count,
 * Spearman's rank correlation, the |error| percentiles and the signed median, the same for the
 * free-communication critical path as a reference, the walk's and the simulation's mean wall time
 * per layout, and each problem's worst layouts.
 *
 * <p>Run: {@code java -cp sim-bench/target/benchmarks.jar org.clustersim.bench.WalkAgreementBench
 * [layouts per problem, a quarter of it for the 70B (225)] [seed (33)] [problem name filter]}
 */
public final class WalkAgreementBench {
    private WalkAgreementBench() {
    }

    public static void main(String[] args) {
        int per = args.length > 0 ? Integer.parseInt(args[0]) : 225;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 33;
        String filter = args.length > 2 ? args[2] : "";
        List<Supplier<AgreementProblem>> problems = List.of(
                () -> AgreementProblem.gpu("gpt3-1.3b", "dgx-h100", 2, 32, 2048, seed),
                () -> AgreementProblem.gpu("llama3-8b", "dgx-h100", 4, 32, 2048, seed),
                () -> AgreementProblem.gpu("llama3-70b", "dgx-h100", 8, 32, 2048, seed),
                () -> AgreementProblem.gpu("mixtral-8x7b", "dgx-h100", 4, 32, 2048, seed),
                () -> AgreementProblem.gpu("qwen3-30b-a3b", "dgx-h100", 2, 32, 2048, seed),
                () -> AgreementProblem.gpu("gpt3-1.3b", "dgx-a100", 2, 32, 2048, seed),
                () -> AgreementProblem.gpu("llama3-8b", "dgx-b200", 2, 32, 2048, seed),
                () -> AgreementProblem.tpu("llama3-8b", "tpu-v5p", "2x2x4", 32, 2048, seed),
                () -> AgreementProblem.tpu("gpt3-1.3b", "tpu-v4", "4x4x4", 64, 2048, seed),
                () -> AgreementProblem.tpu("llama3-8b", "tpu-v5e", "4x8", 32, 2048, seed));
        List<Row> all = new ArrayList<>();
        for (Supplier<AgreementProblem> p : problems) {
            AgreementProblem problem = p.get();
            if (!problem.name().contains(filter)) {
                continue;
            }
            long t0 = System.nanoTime();
            // a 70B layout simulates for seconds: a quarter as many of them
            WalkAgreement.Run run = WalkAgreement.of(problem, problem.name().startsWith("llama3-70b") ? per / 4 : per);
            long t1 = System.nanoTime();
            System.out.printf(Locale.ROOT, "%s: %d candidates, %d compared, %d rejected by the reader, %d over HBM, "
                    + "%.1f s%n", problem.name(), problem.candidates().size(), run.rows().size(), run.rejected(),
                    run.overHbm(), (t1 - t0) / 1e9);
            for (String label : run.deadlocked()) {
                System.out.println("    simulation deadlocked: " + label);
            }
            print(run.rows());
            for (Row r : WalkAgreement.worst(run.rows(), 5)) {
                System.out.printf(Locale.ROOT, "    worst %+7.1f%%  sim %9.3f ms walk %9.3f ms  %s%n", 100 * r.error(),
                        r.simNs() / 1e6, r.walkNs() / 1e6, r.label());
            }
            all.addAll(run.rows());
        }
        System.out.println("overall:");
        print(all);
    }

    private static void print(List<Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        Figures w = Figures.of(rows, Row::walkNs);
        Figures b = Figures.of(rows, Row::boundNs);
        double sim = rows.stream().mapToLong(Row::simWallNs).average().orElse(0) / 1e6;
        double walk = rows.stream().mapToLong(Row::walkWallNs).average().orElse(0) / 1e6;
        System.out.printf(Locale.ROOT, "  walk : n %d spearman %.4f |err| p50 %.2f%% p90 %.2f%% p99 %.2f%% max %.2f%% "
                + "signed median %+.2f%%; %.2f ms/layout walk, %.1f ms/layout simulation%n", w.count(), w.spearman(),
                100 * w.p50(), 100 * w.p90(), 100 * w.p99(), 100 * w.max(), 100 * w.signedMedian(), walk, sim);
        System.out.printf(Locale.ROOT, "  bound: n %d spearman %.4f |err| p50 %.2f%% p90 %.2f%% p99 %.2f%% max %.2f%% "
                + "signed median %+.2f%% (free communication)%n", b.count(), b.spearman(), 100 * b.p50(),
                100 * b.p90(), 100 * b.p99(), 100 * b.max(), 100 * b.signedMedian());
    }
}
