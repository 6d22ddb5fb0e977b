package org.clustersim.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import org.clustersim.core.input.InputException;
import org.clustersim.core.trace.TraceFormat;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --trace-format json|perfetto}, shared by the commands that write a trace. A trace's file
 * name and its format always agree: without the flag the name's extension chooses the format
 * ({@code .pftrace} or {@code .perfetto-trace}: Perfetto's protobuf; anything else JSON); with it,
 * a {@code --trace} name whose extension names the other format is a usage error, and a default
 * name (the scenario's {@code output.trace}) takes the chosen format's extension.
 */
final class TraceFormatOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--trace-format", paramLabel = "FORMAT",
            description = "Trace file format: json (Chrome Trace Event JSON) or perfetto (Perfetto's native protobuf, "
                    + "a fraction of the size, opened by ui.perfetto.dev only). Default: the trace file's extension "
                    + "(.pftrace or .perfetto-trace: perfetto; otherwise json). A trace file whose extension names "
                    + "the other format is an error.")
    String name;

    /** The format named by the flag, empty without it; an unknown name is a usage error (exit 2). */
    Optional<TraceFormat> given() {
        if (name == null) {
            return Optional.empty();
        }
        return Optional.of(Arrays.stream(TraceFormat.values())
                .filter(f -> f.id().equals(name.toLowerCase(Locale.ROOT)))
                .findFirst().orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
                        "--trace-format: found '" + name + "', expected json or perfetto")));
    }

    /** The chosen format where no file name says one (trace directories): the flag's, else JSON. */
    TraceFormat format() {
        return given().orElse(TraceFormat.JSON);
    }

    /**
     * The format of the trace written to {@code file}, given by the user as {@code flag}: the
     * flag's when given, else the one the file's extension names, else JSON.
     *
     * @throws InputException (exit 2) when the flag and the extension disagree,
     *         e.g. {@code --trace-format perfetto} with {@code --trace x.json}
     */
    TraceFormat formatOf(String flag, Path file) {
        Optional<TraceFormat> byName = TraceFormat.ofFileName(file.getFileName() == null ? ""
                : file.getFileName().toString());
        Optional<TraceFormat> chosen = given();
        if (chosen.isPresent() && byName.isPresent() && chosen.get() != byName.get()) {
            TraceFormat f = chosen.get();
            String ext = byName.get().extensionOf(file.getFileName().toString()).orElseThrow();
            throw new InputException("--trace-format " + f.id() + " and " + flag + " " + file + " disagree: a "
                    + ext + " file holds a " + byName.get().id() + " trace; name the file " + stem(file, ext)
                    + f.extension() + " or leave out --trace-format (the extension then chooses the format); "
                    + "nothing was simulated or written");
        }
        return chosen.orElse(byName.orElse(TraceFormat.JSON));
    }

    /**
     * A default trace path (the scenario's {@code output.trace}) for the chosen format: with
     * {@code --trace-format} a name whose extension names the other format takes the chosen
     * format's extension ({@code traces/x.json} becomes {@code traces/x.pftrace}); without the
     * flag the name stays and its extension chooses the format ({@link #formatOf}).
     */
    Path path(Path given) {
        Optional<TraceFormat> chosen = given();
        String s = given.toString();
        Optional<TraceFormat> byName = TraceFormat.ofFileName(s);
        if (chosen.isPresent() && byName.isPresent() && chosen.get() != byName.get()) {
            String ext = byName.get().extensionOf(s).orElseThrow();
            return Path.of(stem(given, ext) + chosen.get().extension());
        }
        return given;
    }

    private static String stem(Path file, String ext) {
        String s = file.toString();
        return s.substring(0, s.length() - ext.length());
    }
}
