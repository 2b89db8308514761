#!/bin/bash
# -----------------------------------------------------------------------------
# submit_cpu.sh - Template for an MPI ocean model run on Nereida (standard partition)
#
# Usage:   sbatch submit_cpu.sh
# Edit the #SBATCH lines and the variables in the "User settings" block.
# Maintainer: Computing Services, Department of Marine Sciences (hpc-dcm@upas.es)
# -----------------------------------------------------------------------------
#SBATCH --job-name=roms_gulf
#SBATCH --partition=standard
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=128
#SBATCH --cpus-per-task=1
#SBATCH --mem-per-cpu=3900M
#SBATCH --time=1-12:00:00
#SBATCH --account=dcm-ocean
#SBATCH --output=slurm-%j.out
#SBATCH --error=slurm-%j.err
#SBATCH --mail-type=END,FAIL
#SBATCH --mail-user=your.name@dcm.upas.es

set -euo pipefail

# ---- User settings ----------------------------------------------------------
MODEL_EXE=romsM                       # model executable
INPUT_FILE=ocean_gulf_cadiz.in        # ROMS input file
RUN_DIR=/scratch/$USER/roms_gulf_${SLURM_JOB_ID}
RESULTS_DIR=/project/dcm-ocean/results/roms_gulf
# -----------------------------------------------------------------------------

# Load exactly one software stack; mixing stacks raises NRD-412.
module purge
module load nereida-stack/2024.3
module load intel-oneapi/2024.0 netcdf-fortran/4.6.1 roms/4.1

echo "Job ${SLURM_JOB_ID} on ${SLURM_JOB_NUM_NODES} nodes, ${SLURM_NTASKS} MPI ranks"
echo "Start: $(date --iso-8601=seconds)"

# Work in scratch: never run models in /home (50 GB quota, NRD-101).
mkdir -p "${RUN_DIR}"
cp "${SLURM_SUBMIT_DIR}/${INPUT_FILE}" "${RUN_DIR}/"
cp -r "${SLURM_SUBMIT_DIR}/forcing" "${RUN_DIR}/"
cd "${RUN_DIR}"

# Write restart files every 6 model hours so the run can continue after NRD-204.
export ROMS_RST_INTERVAL=21600

srun --mpi=pmix "${MODEL_EXE}" "${INPUT_FILE}" > roms_${SLURM_JOB_ID}.log

# Copy results to project space (scratch is purged after 30 days without access).
mkdir -p "${RESULTS_DIR}"
cp ocean_his_*.nc ocean_avg_*.nc "${RESULTS_DIR}/"

echo "End: $(date --iso-8601=seconds)"
