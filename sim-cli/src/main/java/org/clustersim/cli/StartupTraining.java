package org.clustersim.cli;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;

/**
 * The training run of the launcher's ahead-of-time cache (JDK 25 and newer, JEP 483/514/515):
 * what a typical command does, on bundled scenarios, so that the cache holds the classes, their
 * linking and the method profiles of reading YAML, building a fabric, simulating and writing
 * outputs. It simulates the 16,384-GPU Llama 3 405B step (summary and CSV; its trace would be
 * gigabytes) and the README's first example, Megatron-LM's GPT 39.1B run (summary and Chrome
 * trace). Every output goes
 * to the scratch folder it is given, which the launcher deletes; nothing is printed.
 *
 * <p>Usage: {@code StartupTraining SCENARIOS_DIR SCRATCH_DIR}. Exit code 0 when both commands
 * succeeded, else the first failing command's code (the launcher then builds no cache).
 */
public final class StartupTraining {
    private StartupTraining() {
    }

    /** Runs the training commands. */
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: StartupTraining SCENARIOS_DIR SCRATCH_DIR");
            System.exit(ClusterSim.BAD_INPUT);
        }
        Path scenarios = Path.of(args[0]);
        Path out = Path.of(args[1]);
        String[][] commands = {
            {"run", scenarios.resolve("llama3-405b-16k-h100.yaml").toString(), "--no-trace",
                "--summary", out.resolve("16k.json").toString(), "--csv", out.resolve("16k.csv").toString()},
            {"run", scenarios.resolve("validation/megatron-sc21/gpt-39.1b.yaml").toString(),
                "--trace", out.resolve("gpt-trace.json").toString(), "--summary", out.resolve("gpt.json").toString()},
        };
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        PrintWriter err = new PrintWriter(System.err, true);
        for (String[] command : commands) {
            int code = ClusterSim.execute(command, quiet, err);
            if (code != 0) {
                err.println("training command failed (exit " + code + "): " + String.join(" ", command));
                System.exit(code);
            }
        }
        System.exit(0);
    }
}
