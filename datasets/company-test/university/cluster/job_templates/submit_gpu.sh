#!/bin/bash
# -----------------------------------------------------------------------------
# submit_gpu.sh - Template for a single-node GPU job on Nereida (gpu partition)
#
# Example: training a plankton image classifier with PyTorch.
# A job in the gpu partition MUST request GPUs, otherwise it fails with NRD-310.
# Max 4 GPUs per node, max 2 nodes per job, max walltime 2 days.
# -----------------------------------------------------------------------------
#SBATCH --job-name=plankton_cnn
#SBATCH --partition=gpu
#SBATCH --nodes=1
#SBATCH --gres=gpu:2
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=16
#SBATCH --mem=120G
#SBATCH --time=12:00:00
#SBATCH --account=dcm-bio
#SBATCH --output=slurm-%j.out
#SBATCH --error=slurm-%j.err

set -euo pipefail

module purge
module load nereida-stack/2024.3
module load cuda/12.2 python/3.11 pytorch/2.1

DATA_DIR=/project/dcm-bio/plankton/images_2024
OUT_DIR=/scratch/$USER/plankton_cnn_${SLURM_JOB_ID}
mkdir -p "${OUT_DIR}"

# Show the GPUs assigned to this job
nvidia-smi --query-gpu=index,name,memory.total --format=csv

# Use local NVMe on the GPU node for faster data loading
export TMPDIR=/localscratch/${SLURM_JOB_ID}
mkdir -p "${TMPDIR}"
rsync -a "${DATA_DIR}/" "${TMPDIR}/images/"

python train_classifier.py \
    --data "${TMPDIR}/images" \
    --epochs 40 \
    --batch-size 256 \
    --num-workers "${SLURM_CPUS_PER_TASK}" \
    --output "${OUT_DIR}"

# /localscratch is wiped at the end of every job: copy what you need.
cp -r "${OUT_DIR}" /project/dcm-bio/plankton/models/
