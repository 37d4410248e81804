package org.troika.launcher.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.troika.common.exec.LaunchPlan;

/**
 * A planned launch: the command, the files it needs (written owner-only before launch, removed after), warnings
 * for the user (requested options the backend cannot honour), and the per-rank output files troika writes from the
 * launcher's tagged output ({@code null}: none, or the launcher writes its own).
 *
 * <p>Only the canonical constructor builds one; a plan is changed through the {@code with...} methods, which keep
 * every other field (a short constructor once dropped {@code rankOutput}).
 */
public record BackendPlan(LaunchPlan launch, Map<Path, String> files, List<String> warnings, RankOutput rankOutput) {
    public BackendPlan {
        files = Map.copyOf(files);
        warnings = List.copyOf(warnings);
    }

    /** The same plan with another launch command (files, warnings and rank output kept). */
    public BackendPlan withLaunch(LaunchPlan other) {
        return new BackendPlan(other, files, warnings, rankOutput);
    }

    /** The same plan with other files (launch, warnings and rank output kept). */
    public BackendPlan withFiles(Map<Path, String> other) {
        return new BackendPlan(launch, other, warnings, rankOutput);
    }
}
