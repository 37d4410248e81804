# bench/progress.sh still uses AllreduceBench here: the common set-up moved to bench/mpi/env.bash
source "$(dirname "${BASH_SOURCE[0]}")/../mpi/env.bash"
