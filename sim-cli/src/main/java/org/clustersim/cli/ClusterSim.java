package org.clustersim.cli;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputException;
import org.clustersim.core.input.InputFileException;
import java.io.PrintWriter;


import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code clustersim} command line. Exit codes: 0 success, 2 bad input (scenario file or
 * flags) or an output that cannot be written (a file or standard output), 1 internal error.
 */
@Command(name = "clustersim", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Discrete-event simulator of distributed LLM training clusters.")
public final class ClusterSim implements Runnable {
    /**
     * The commands, in the order help lists them. They are registered when the command line is
     * made: all of them, or only the one named when the arguments name one, since building
     * picocli's model of every command took a third of a second of each run's start.
     */
    static final java.util.List<Class<?>> COMMANDS = java.util.List.of(RunCommand.class, ReportCommand.class,
            ValidateCommand.class, ScheduleCommand.class, BubblesCommand.class, CollectiveCommand.class,
            PresetsCommand.class, TopologyCommand.class, WhatIfCommand.class, GoodputCommand.class,
            CalibrateCommand.class, SchemaCommand.class, PlanCommand.class, PlaceCommand.class,
            CommandLine.HelpCommand.class);

    /** Exit code for bad input. */
    public static final int BAD_INPUT = 2;
    /** Exit code for an internal error. */
    public static final int INTERNAL_ERROR = 1;

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces of internal errors.")
    boolean debug;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: expected one of "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** Entry point. */
    public static void main(String[] args) {
        StandardOutput stdout = new StandardOutput(new java.io.FileOutputStream(java.io.FileDescriptor.out));
        System.exit(execute(args, new PrintWriter(stdout, true), new PrintWriter(System.err, true), stdout));
    }

    /** Runs the command line with the given streams and returns the exit code (for tests). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        return execute(args, out, err, null);
    }

    /**
     * Runs the command line and then checks that everything it printed reached {@code out}: a
     * write error there (a full disk, a closed pipe) fails the command as a file that cannot be
     * written does, since the reader holds a truncated output. {@code stdout}, when given, is the
     * stream under {@code out} and tells the reason.
     */
    static int execute(String[] args, PrintWriter out, PrintWriter err, StandardOutput stdout) {
        int code = commands(args, out, err);
        if (!out.checkError() || code != 0) {
            return code; // a command that failed has said why; a lost stdout adds nothing to that
        }
        java.io.IOException why = stdout == null ? null : stdout.failure();
        if (why != null && "Broken pipe".equals(why.getMessage())) {
            return BAD_INPUT; // the reader stopped reading (| head): it knows, and a message would only interleave
        }
        err.println("error: cannot write standard output" + (why == null || why.getMessage() == null ? ""
                : ": " + InputError.printable(why.getMessage())) + "; what was printed is incomplete");
        err.flush();
        return BAD_INPUT;
    }

    private static int commands(String[] args, PrintWriter out, PrintWriter err) {
        ClusterSim root = new ClusterSim();
        CommandLine cl = commandLine(root, args);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof InputFileException se) {
                for (InputError e : se.errors()) {
                    err.println("error: " + e.format());
                }
                String nothing = commandLine.getCommandName().equals("calibrate") ? "nothing was written."
                        : "nothing was simulated or written.";
                err.println((se.errors().size() == 1 ? "1 error; " : se.errors().size() + " errors; ") + nothing);
                err.flush();
                return BAD_INPUT;
            }
            var cut = org.clustersim.study.whatif.WhatIfStudy.unreachable(ex);
            if (cut != null) {
                err.println("error: the faults cut the cluster apart: " + InputError.printable(cut.getMessage()));
                err.println("nothing was written; drop or shorten the fault, or pick a link with a redundant path");
                err.flush();
                return BAD_INPUT;
            }
            if (ex instanceof InputException ie) {
                err.println("error: " + InputError.printable(ie.getMessage()));
                err.flush();
                return BAD_INPUT;
            }
            if (causedByOutOfMemory(ex)) {
                return outOfMemory(err);
            }
            err.println("internal error: " + InputError.printable(ex.getMessage() == null ? ex.toString()
                    : ex.getMessage()));
            if (root.debug) {
                ex.printStackTrace(err);
            } else {
                err.println("(run with --debug for the stack trace)");
            }
            err.flush();
            return INTERNAL_ERROR;
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            return outOfMemory(err);
        } catch (StackOverflowError e) {
            err.println("internal error: the work nested too deeply for the thread's stack; nothing was written");
            err.println("(run with --debug for the stack trace, and please report it)");
            if (root.debug) {
                e.printStackTrace(err);
            }
            err.flush();
            return INTERNAL_ERROR;
        }
    }

    /**
     * The command line of {@code root}: with only the command {@code args} name first (after the
     * root's own options), or with every command when they name none (help, an unknown or
     * missing command: the full list is what the messages show).
     */
    static CommandLine commandLine(ClusterSim root, String[] args) {
        CommandLine cl = new CommandLine(root);
        String first = java.util.Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse("");
        java.util.List<Class<?>> named = COMMANDS.stream().filter(c -> c != CommandLine.HelpCommand.class
                && c.getAnnotation(Command.class).name().equals(first)).toList();
        for (Class<?> c : named.isEmpty() ? COMMANDS : named) {
            cl.addSubcommand(c);
        }
        return cl;
    }

    /**
     * A genuine resource limit: exit 1 with advice, never a stack trace. The output transaction
     * has already deleted its temporary files while the error unwound.
     */
    static int outOfMemory(PrintWriter err) {
        err.println("error: out of memory: the work needed more than the " + org.clustersim.core.input.InputFile.size(
                Runtime.getRuntime().maxMemory()) + " of heap this JVM may use; nothing was written.");
        err.println("Try more heap (CLUSTERSIM_JAVA_OPTS=-Xmx16g ./clustersim ...), one data-parallel replica "
                + "(simulation.replicas: one), --no-trace, fewer microbatches, or fewer --threads.");
        err.flush();
        return INTERNAL_ERROR;
    }

    private static boolean causedByOutOfMemory(Throwable t) {
        for (int i = 0; t != null && i < 20; i++, t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }
}
