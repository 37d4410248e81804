package org.troika.launcher.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.troika.common.exec.LaunchPlan;

/**
 * A planned launch: the command, the files it needs (written owner-only before launch, removed after) and
 * warnings for the user (requested options the backend cannot honour).
 */
public record BackendPlan(LaunchPlan launch, Map<Path, String> files, List<String> warnings) {
    public BackendPlan {
        files = Map.copyOf(files);
        warnings = List.copyOf(warnings);
    }

    public BackendPlan(LaunchPlan launch) {
        this(launch, Map.of(), List.of());
    }
}
