package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFile;
import org.clustersim.core.input.InputFileException;

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
        try {
            return Optional.of(InputFile.readText(file, InputFile.MAX_MEASUREMENT_BYTES, expected).lines().toList());
        } catch (InputFileException e) {
            errors.addAll(e.errors());
            return Optional.empty();
        }
    }
}
