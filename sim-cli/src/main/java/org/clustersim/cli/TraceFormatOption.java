package org.clustersim.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import org.clustersim.core.trace.TraceFormat;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code --trace-format json|perfetto}, shared by the commands that write a trace. */
final class TraceFormatOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--trace-format", paramLabel = "FORMAT", defaultValue = "json",
            description = "Trace file format: json (Chrome Trace Event JSON, the default) or perfetto (Perfetto's "
                    + "native protobuf, a fraction of the size; default file name .pftrace).")
    String name;

    /** The chosen format; an unknown name is a usage error (exit 2). */
    TraceFormat format() {
        return Arrays.stream(TraceFormat.values()).filter(f -> f.id().equals(name.toLowerCase(Locale.ROOT)))
                .findFirst().orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
                        "--trace-format: found '" + name + "', expected json or perfetto"));
    }

    /**
     * A trace path for this format: {@code stem} plus the format's extension; a path named in the
     * scenario as {@code .json} is given the Perfetto extension when Perfetto is chosen.
     */
    Path path(Path given) {
        TraceFormat f = format();
        String s = given.toString();
        if (f != TraceFormat.JSON && s.endsWith(TraceFormat.JSON.extension())) {
            return Path.of(s.substring(0, s.length() - TraceFormat.JSON.extension().length()) + f.extension());
        }
        return given;
    }
}
