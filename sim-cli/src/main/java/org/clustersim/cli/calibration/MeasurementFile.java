package org.clustersim.cli.calibration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.clustersim.core.input.InputError;

/** Reading a measurement file's lines, with the error a user sees when it is missing or unreadable. */
final class MeasurementFile {
    private MeasurementFile() {
    }

    /**
     * The file's lines, or empty after recording why not.
     *
     * @param expected what the file should have been, for the message ("a CSV file with ...")
     */
    static Optional<List<String>> lines(Path file, String expected, List<InputError> errors) {
        String source = file.toString();
        if (!Files.isRegularFile(file)) {
            errors.add(InputError.at(source, 0, "", "found no such file, expected " + expected));
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            errors.add(InputError.at(source, 0, "", "cannot read: " + e.getMessage()));
            return Optional.empty();
        }
    }
}
