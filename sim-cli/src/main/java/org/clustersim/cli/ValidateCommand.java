package org.clustersim.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code clustersim validate SCENARIO}: checks a scenario file without simulating it. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a scenario file (or a shared-cluster file: its jobs and their placements) and report "
                + "every error in it; simulates nothing.")
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
        // the faults name links, switches, NICs and GPUs of the built cluster: check them too
        var step = s.trainingStep();
        var faults = s.faultEvents(step.topology());
        var words = org.clustersim.cli.output.DeviceWords.of(s.cluster());
        long links = faults.links().stream().map(e -> e.linkId()).distinct().count();
        spec.commandLine().getOut().printf("%s: ok (%s, %s, pp=%d, %s, %d microbatches%s)%n", scenarioFile,
                s.model().name(), words.devices(s.cluster().gpus()), s.parallelism().layout().mesh().pp(),
                s.schedule().id(), s.microbatches(),
                s.faults().isEmpty() ? "" : ", " + s.faults().size() + " fault" + (s.faults().size() == 1 ? "" : "s")
                        + " touching " + links + " link" + (links == 1 ? "" : "s") + " and "
                        + words.devices(faults.devices().stream().map(e -> e.device()).distinct().count()));
        WorkEstimate work = WorkEstimate.of(s, step, s.output().trace().isPresent());
        spec.commandLine().getOut().printf("work: %s (the JVM may use %s of heap)%n", work.describe(),
                org.clustersim.core.input.InputFile.size(Runtime.getRuntime().maxMemory()));
        spec.commandLine().getOut().flush();
        work.requireFits();
        return 0;
    }
}
