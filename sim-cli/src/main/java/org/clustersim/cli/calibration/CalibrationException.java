package org.clustersim.cli.calibration;

import java.util.List;
import java.util.stream.Collectors;

/** The measurements or the base profile could not be accepted; carries every error found, in input order. */
public final class CalibrationException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<CalibrationError> errors;

    public CalibrationException(List<CalibrationError> errors) {
        super(errors.stream().map(CalibrationError::format).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    public List<CalibrationError> errors() {
        return errors;
    }
}
