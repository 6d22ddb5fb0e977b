package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.clustersim.core.input.InputFile;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.study.plan.PeakMemory;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code clustersim validate SCENARIO}: checks a scenario file without simulating it: the file
 * itself, the fault targets against the built cluster, the work a run would take
 * ({@link WorkEstimate}) and whether the layout fits in HBM ({@link PeakMemory}'s prediction),
 * so that what {@code run} would refuse after building or simulating is refused here first.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a scenario file (or a shared-cluster file: its jobs and their placements) and report "
                + "every error in it, the work a run would take and the predicted peak memory per GPU (a layout "
                + "over HBM is an error unless simulation.allowOom); simulates nothing.")
public final class ValidateCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json).")
    Path scenarioFile;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        org.clustersim.core.input.SourceNode tree = new org.clustersim.core.input.SourceTreeReader().read(scenarioFile);
        if (org.clustersim.study.scenario.SharedScenarioReader.isShared(tree)) {
            return SharedClusterRun.validate(spec.commandLine().getOut(), scenarioFile, tree);
        }
        Scenario s = new ScenarioReader().read(scenarioFile, tree);
        PrintWriter out = spec.commandLine().getOut();
        WorkEstimate cluster = WorkEstimate.cluster(s.name(), s.cluster());
        if (!cluster.fits()) {
            out.printf("work: %s for the cluster's graph (the JVM may use %s of heap)%n", cluster.describe(),
                    maxHeap());
            out.flush();
            cluster.requireFits();
        }
        // the faults name links, switches, NICs and GPUs of the built cluster: check them too
        TrainingStep step = s.trainingStep();
        var faults = s.faultEvents(step.topology());
        WorkEstimate work = WorkEstimate.of(s, step, s.output().trace().isPresent());
        if (!work.fits()) {
            // the memory model walks every microbatch of the schedule: not for work this large
            out.printf("work: %s (the JVM may use %s of heap)%n", work.describe(), maxHeap());
            out.flush();
            work.requireFits();
        }
        long hbm = s.cluster().accelerator().hbmBytes();
        PeakMemory.Peak predicted = PeakMemory.of(step);
        HbmPeak peak = HbmPeak.predicted(step.topology().device(step.device(0, 0, predicted.rank(), 0)).name(),
                predicted);
        boolean oom = peak.over(hbm) && !s.allowOom();
        if (!oom) {
            var words = org.clustersim.cli.output.DeviceWords.of(s.cluster());
            long links = faults.links().stream().map(e -> e.linkId()).distinct().count();
            out.printf("%s: ok (%s, %s, pp=%d, %s, %d microbatches%s)%n", scenarioFile,
                    s.model().name(), words.devices(s.cluster().gpus()), s.parallelism().layout().mesh().pp(),
                    s.schedule().id(), s.microbatches(),
                    s.faults().isEmpty() ? "" : ", " + s.faults().size() + " fault" + (s.faults().size() == 1 ? "" : "s")
                            + " touching " + links + " link" + (links == 1 ? "" : "s") + " and "
                            + words.devices(faults.devices().stream().map(e -> e.device()).distinct().count()));
        }
        out.printf("work: %s (the JVM may use %s of heap)%n", work.describe(), maxHeap());
        out.printf("memory: %s (pipeline rank %d), predicted: %s%n", peak.gpu(), predicted.rank(), peak.against(hbm));
        out.flush();
        if (oom) {
            throw peak.outOfMemory(s.name(), hbm, " predicted before simulating",
                    "set simulation.allowOom: true (or run --allow-oom) to simulate anyway");
        }
        if (peak.over(hbm)) {
            PrintWriter err = spec.commandLine().getErr();
            err.printf("warning: %s does not fit in HBM: on %s %s; simulated anyway (simulation.allowOom)%n",
                    s.name(), peak.gpu(), peak.against(hbm));
            err.flush();
        }
        return 0;
    }

    private static String maxHeap() {
        return InputFile.size(Runtime.getRuntime().maxMemory());
    }
}
