// What an MPI step program needs around the harness: MPI_Init and MPI_Finalize, rank 0 alone
// speaking, and the one rule that keeps a failing run from hanging: no rank may leave for a
// collective that another rank skips. Every rank parses the same command line, so bad input
// fails on all of them before any collective; anything that can fail on one rank only runs in
// every_rank(), after which all ranks know and stop together. Every rank exits with one code.
// Header-only, in the MPI-only target gemv_common_mpi.
#pragma once

#include <mpi.h>

#include <exception>
#include <iostream>
#include <sstream>
#include <string>

#include "cli.hpp"

namespace gemv {

// Thrown on the ranks that did not fail when another one did: not a std::exception, so it passes
// through run_step silently (the failing rank has its own message) and main turns it into a code.
struct OtherRankFailed {};

class MpiSession {
public:
    MpiSession(int* argc, char*** argv) {
        MPI_Init(argc, argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
        if (!root()) {  // the others' output is kept, and shown only for a failure of their own
            cout_ = std::cout.rdbuf(discarded_.rdbuf());
            cerr_ = std::cerr.rdbuf(errors_.rdbuf());
        }
    }
    ~MpiSession() { MPI_Finalize(); }
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    bool root() const { return rank_ == 0; }

    // Runs stage here, then every rank learns whether any rank failed in it (one collective that
    // every rank reaches, thrown or not). Rethrows this rank's own failure; where only others
    // failed, throws OtherRankFailed.
    template <class Stage>
    void every_rank(Stage&& stage) {
        std::exception_ptr failure;
        try {
            stage();
        } catch (...) {
            failure = std::current_exception();
        }
        int mine = failure ? 1 : 0, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (failure) {
            failed_here_ = true;
            std::rethrow_exception(failure);
        }
        if (any) throw OtherRankFailed{};
    }

    // main's whole body: the harness's run_step on every rank (body takes the parsed options), then
    // one exit code for all of them. A rank stopped by another's failure says so and exits 1.
    template <class Body>
    int run_step(int argc, char** argv, const StepSpec& spec, Body&& body) {
        int code = kExitError;
        try {
            code = ::gemv::run_step(argc, argv, spec, body);
        } catch (const OtherRankFailed&) {
            std::cerr << "error: another rank failed (its message, named by rank, says why)\n";
        }
        return finish(code);
    }

    // The exit code of every rank: the largest any rank ended with. A rank that failed on its own
    // shows the first line of its message, named by rank.
    int finish(int code) {
        if (!root()) {
            std::cout.rdbuf(cout_);
            std::cerr.rdbuf(cerr_);
            std::string first;
            std::getline(errors_, first);
            if (failed_here_ && !first.empty()) std::cerr << "rank " << rank_ << ": " << first << std::endl;
        }
        int all = code;
        MPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return all;
    }

private:
    int rank_ = 0, ranks_ = 1;
    bool failed_here_ = false;
    std::stringstream discarded_, errors_;
    std::streambuf* cout_ = nullptr;
    std::streambuf* cerr_ = nullptr;
};

}  // namespace gemv
