package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.study.scenario.ScenarioSchema;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim schema}: prints the JSON Schema (draft 2020-12) of scenario files, written
 * from the field definitions the reader checks with, for editors to complete and check scenarios;
 * {@code --shared}, that of shared-cluster files.
 */
@Command(name = "schema", mixinStandardHelpOptions = true,
        description = "Print the JSON Schema (draft 2020-12) of scenario files, for editors: "
                + "clustersim schema > scenario.schema.json; --shared: of shared-cluster files")
public final class SchemaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the schema to FILE instead of "
            + "standard output.")
    Path output;

    @Option(names = "--shared", description = "The schema of shared-cluster files (a jobs list) instead.")
    boolean shared;

    @Override
    public Integer call() {
        String schema = shared ? org.clustersim.study.scenario.SharedScenarioSchema.text() : ScenarioSchema.text();
        if (output != null) {
            OutputFiles.write(Map.of(output, o -> o.write(schema.getBytes(StandardCharsets.UTF_8))));
            return 0;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(schema);
        out.flush();
        return 0;
    }
}
