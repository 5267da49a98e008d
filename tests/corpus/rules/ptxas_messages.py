"""ptxas 13.5 error messages for the static-rule breaks (written by check_corpus.py --record)."""

PTXAS_MESSAGES = {
    'TM0001-ncols-not-power-of-two/break-static': "Argument 1 of 'tcgen05.alloc' instruction: value must be power of 2",
    'TM0002-ncols-not-multiple-of-32/break-static': "Argument 1 of instruction 'tcgen05.alloc': unexpected value '48', expected to be multiple of 32\nArgument 1 of 'tcgen05.alloc' instruction: value must be power of 2",
    'TM0003-ncols-out-of-range/break-static': "Argument 1 of instruction 'tcgen05.alloc': value '1024' out of range, expected to be in range [32..512]",
    'TM0401-mixed-cta-group/break': "Function 'rule_kernel' uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not allowed.",
    'TM0402-ldst-vector-length/break': "Argument 0 of instruction 'tcgen05.ld': Argument vector size mismatch",
    'TM0403-half-splitoff-not-immediate/break': "Argument 2 of instruction 'tcgen05.ld': must be constant",
    'TM0404-pack-unpack-misplaced/break': "Illegal modifier '.pack::16b' for instruction 'tcgen05.st'",
    'TM0405-ld-red-invalid/break': "Illegal modifier '.x1' for instruction 'tcgen05.ld.red'",
    'TM0406-cp-shape-multicast/break': "Modifier '.warptype' require for instruction tcgen05.cp with shape '.64x128b'",
    'TM0407-cp-format-pair/break': "Unexpected number of 'format conversion' modifiers specified",
    'TM0408-commit-multicast-mask/break': "Arguments mismatch for instruction 'tcgen05.commit'",
    'TM0409-target-unsupported/break': "Instruction 'tcgen05.alloc' not supported on .target 'sm_90a'\nFeature '.cta_group::1' not supported on .target 'sm_90a'\nInstruction 'tcgen05.relinquish_alloc_permit' not supported on .target 'sm_90a'\nInstruction 'tcgen05.fence' not supported on .target 'sm_90a'\nFeature '.32x32b' not supported on .target 'sm_90a'\nInstruction 'tcgen05.st' not supported on .target 'sm_90a'\nInstruction 'tcgen05.wait' not supported on .target 'sm_90a'\nInstruction 'tcgen05.ld' not supported on .target 'sm_90a'\nInstruction 'tcgen05.dealloc' not supported on .target 'sm_90a'",
    'TM0410-missing-qualifier/break': ".sync modifier required for instruction 'tcgen05.alloc'\n.aligned modifier required for instruction 'tcgen05.alloc'",
    'TM0411-alloc-state-space/break': "State space incorrect for instruction 'tcgen05.alloc', expected '.shared::cta'",
    'TM0412-mbarrier-cluster-arrive-state/break': "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive' with '.shared::cluster'",
    'TM0413-mma-qualifier-combination/break': "Argument 5 of instruction 'tcgen05.mma': value '16' out of range, expected to be in range [0..15]",
    'TM0413-mma-qualifier-combination/break-ashift-descriptor': "Illegal modifier '.ashift' for instruction 'tcgen05.mma'",
}
