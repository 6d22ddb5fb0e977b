package org.clustersim.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.input.InputException;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.workload.EtTraceWriter;

/**
 * {@code run --et-out DIR}: the simulated step's task graph as Chakra execution traces, one file
 * per rank ({@code DIR/<scenario>.<rank>.et}, {@link EtTraceWriter}), and its process groups as
 * ASTRA-sim's communicator-group file ({@code DIR/<scenario>.json}: each {@code pg_name} with its
 * ranks). The folder is checked before simulating; the files are staged with the command's other
 * outputs, so all appear or none.
 */
final class EtOutput {
    private EtOutput() {
    }

    /** Rank {@code rank}'s file under {@code dir}. */
    static Path file(Path dir, Scenario scenario, int rank) {
        return dir.resolve(scenario.name() + "." + rank + ".et");
    }

    /**
     * Checks, before any work, that {@code dir} can take the files and that the scenario's step is
     * one the files can hold.
     *
     * @throws InputException naming --et-out and what was expected
     */
    static void check(Path dir, Scenario scenario) {
        if (dir == null) {
            return;
        }
        if (dir.toString().isEmpty()) {
            throw new InputException("--et-out (empty): an empty folder name; give a folder for the rank files");
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new InputException("--et-out " + dir + ": is a file; expected a folder (created if missing) for "
                    + "one Chakra .et file per rank");
        }
        if (!scenario.allReplicas()) {
            throw new InputException("--et-out " + dir + ": " + scenario.source() + " simulates one data-parallel "
                    + "replica standing for all (simulation.replicas: one); expected replicas: all, so that every "
                    + "rank has its trace");
        }
        if (scenario.steps() > 1) {
            throw new InputException("--et-out " + dir + ": " + scenario.source() + " simulates " + scenario.steps()
                    + " steps back to back; expected simulation.steps: 1 (the trace holds one step)");
        }
        OutputFiles.check("--et-out", file(dir, scenario, 0));
    }

    /** The process groups' file under {@code dir}: ASTRA-sim's communicator-group configuration. */
    static Path groups(Path dir, Scenario scenario) {
        return dir.resolve(scenario.name() + ".json");
    }

    /** Adds one file per rank of {@code graph}, and the process groups' file, to {@code files}. */
    static EtTraceWriter stage(Map<Path, AtomicOutput.Content> files, Path dir, Scenario scenario, TaskGraph graph) {
        EtTraceWriter writer;
        try {
            writer = EtTraceWriter.of(graph, "clustersim " + Version.current() + ", scenario " + scenario.name());
        } catch (IllegalArgumentException e) {
            throw new InputException("--et-out " + dir + ": " + e.getMessage() + "; expected a smaller step "
                    + "(nothing was written)");
        }
        for (int r = 0; r < writer.ranks(); r++) {
            int rank = r;
            files.put(file(dir, scenario, rank), out -> writer.write(rank, out));
        }
        files.put(groups(dir, scenario), OutputFiles.json(writer.processGroups()));
        return writer;
    }
}
