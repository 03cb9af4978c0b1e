// The one C++ file: what llvm-c cannot do. Each function names the gap it fills.
// Nothing else belongs here; everything that llvm-c can express is written in C.
// LLVM's headers first: uv.h (through ours) pulls in termios.h, whose CR1/CR2 macros
// break llvm/IR/ConstantRange.h.
#include <llvm/Analysis/ModuleSummaryAnalysis.h>
#include <llvm/AsmParser/LLParser.h>
#include <llvm/Analysis/ProfileSummaryInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/AutoUpgrade.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IR/ModuleSummaryIndex.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <cstring>

#include "base/base.h"

// Gap: llvm-c has no way to build a ModuleSummaryIndex or to write bitcode with one
// (LLVMWriteBitcodeToMemoryBuffer writes none), and libLTO's thin link ignores a module
// without a summary (ARCHITECTURE fact 2). This is what `opt -module-summary` does.
extern "C" int bridge_write_bitcode_with_summary(LLVMModuleRef m, Buffer *out, char **errmsg) {
  llvm::Module &module = *llvm::unwrap(m);
  llvm::ProfileSummaryInfo psi(module);
  llvm::ModuleSummaryIndex index = llvm::buildModuleSummaryIndex(module, nullptr, &psi);
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  // The module hash lets libLTO's cache recognise an unchanged module (--cache-dir).
  llvm::WriteBitcodeToFile(module, os, /*ShouldPreserveUseListOrder=*/false, &index,
                           /*GenerateHash=*/true);
  if (bytes.empty()) {
    *errmsg = xstrdup("cannot write bitcode with a summary");
    return -1;
  }
  out->size = bytes.size();
  out->data = static_cast<uint8_t *>(xmalloc(out->size));
  std::memcpy(out->data, bytes.data(), out->size);
  return 0;
}

// Gap: llvm-c cannot turn a definition into a declaration in place (there is no
// LLVMDeleteFunctionBody); replacing the function would lose its attributes and uses.
extern "C" void bridge_make_declaration(LLVMValueRef gv) {
  llvm::GlobalValue *value = llvm::unwrap<llvm::GlobalValue>(gv);
  if (auto *f = llvm::dyn_cast<llvm::Function>(value))
    f->deleteBody();
  else if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(value))
    var->setInitializer(nullptr);
  if (auto *object = llvm::dyn_cast<llvm::GlobalObject>(value)) object->setComdat(nullptr);
  value->setLinkage(llvm::GlobalValue::ExternalLinkage);
}

// Gap: llvm-c has no accessor for a global variable's attribute set; device globals carry
// their properties there ("sycl-device-image-scope", "sycl-unique-id").
extern "C" bool bridge_global_attribute(LLVMValueRef gv, const char *name, const char **value,
                                        size_t *len) {
  auto *var = llvm::dyn_cast<llvm::GlobalVariable>(llvm::unwrap<llvm::GlobalValue>(gv));
  if (!var || !var->hasAttribute(name)) return false;
  llvm::StringRef text = var->getAttribute(name).getValueAsString();
  *value = text.data();
  *len = text.size();
  return true;
}

// Gap: llvm-c can neither set a global variable's attributes nor its dso_local. DPC++'s
// sanitizers (-fsanitize=address|memory|thread) leave a table of the instrumented kernels,
// __AsanKernelMetadata (__MsanKernelMetadata, __TsanKernelMetadata: the first of them there
// is), an array that the runtime reads as a device global. SPIR-V has no appending linkage
// and the translator takes no array-typed device global, so, as sycl-post-link: the table
// becomes an external, dso_local, local_unnamed_addr variable of the same name whose type is
// an unnamed struct holding the array (its attributes and metadata kept, uses moved), sized
// by "sycl-device-global-size", and decorated HostAccessINTEL (6147), access 0 (read), under
// its "sycl-unique-id" (its name where it has none) in !spirv.Decorations, which llvm-link
// drops. Whether there was one.
extern "C" bool bridge_fix_sanitizer_table(LLVMModuleRef m) {
  llvm::Module &module = *llvm::unwrap(m);
  llvm::GlobalVariable *old = nullptr;
  for (const char *name : {"__AsanKernelMetadata", "__MsanKernelMetadata", "__TsanKernelMetadata"})
    if (!old) old = module.getNamedGlobal(name);
  if (!old || !old->hasInitializer() || !old->getValueType()->isArrayTy()) return false;
  llvm::LLVMContext &ctx = module.getContext();
  std::string name = old->getName().str();
  old->setName(name + ".old");
  llvm::StructType *holder = llvm::StructType::create(ctx); // prints as %N
  holder->setBody({old->getValueType()});
  auto *table = new llvm::GlobalVariable(
      module, holder, false, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(holder, {old->getInitializer()}), name, nullptr,
      llvm::GlobalValue::NotThreadLocal, old->getAddressSpace());
  table->copyAttributesFrom(old);
  table->copyMetadata(old, 0);
  table->setLinkage(llvm::GlobalValue::ExternalLinkage);
  table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Local);
  table->setDSOLocal(true);
  old->replaceAllUsesWith(table);
  old->eraseFromParent();
  uint64_t size = module.getDataLayout().getTypeAllocSize(holder);
  table->addAttribute("sycl-device-global-size", std::to_string(size));
  std::string id = table->hasAttribute("sycl-unique-id")
                       ? table->getAttribute("sycl-unique-id").getValueAsString().str()
                       : name;
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Metadata *host_access[] = {
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 6147)),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 0)),
      llvm::MDString::get(ctx, id)};
  llvm::Metadata *decorations[] = {llvm::MDNode::get(ctx, host_access)};
  table->setMetadata("spirv.Decorations", llvm::MDNode::get(ctx, decorations));
  return true;
}

// Gap: llvm-c's target machine options have no TargetOptions::UseInitArray, which is off by
// default, so llvm.global_ctors/dtors land in .ctors.N/.dtors.N: GNU ld and gold run those,
// lld does not. With it, they land in .init_array.N/.fini_array.N, which all three run.
// llvm-c's LLVMTargetMachineRef is a TargetMachine * (TargetMachineC.cpp's wrap/unwrap are
// a reinterpret_cast); the option is read when code is emitted, so setting it now counts.
extern "C" void bridge_use_init_array(LLVMTargetMachineRef tm) {
  reinterpret_cast<llvm::TargetMachine *>(tm)->Options.UseInitArray = true;
}

// Gap: llvm-c cannot tell how a bitcode file takes part in LTO (llvm::getBitcodeLTOInfo:
// a ThinLTO summary or a full-LTO module). A rewritten host module keeps the form it came in.
extern "C" int bridge_bitcode_is_thinlto(const uint8_t *data, size_t size, bool *is_thinlto) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(reinterpret_cast<const char *>(data), size),
                               "bitcode");
  llvm::Expected<llvm::BitcodeLTOInfo> info = llvm::getBitcodeLTOInfo(buffer);
  if (!info) {
    llvm::consumeError(info.takeError());
    return -1;
  }
  *is_thinlto = info->IsThinLTO;
  return 0;
}

// Gap: llvm-c reads a module's triple only by parsing the module (llvm::getBitcodeTargetTriple
// reads the header's record alone). The prepare stage trusts no key for what it hands libLTO.
extern "C" char *bridge_bitcode_triple(const uint8_t *data, size_t size) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(reinterpret_cast<const char *>(data), size),
                               "bitcode");
  llvm::Expected<std::string> triple = llvm::getBitcodeTargetTriple(buffer);
  if (!triple) {
    llvm::consumeError(triple.takeError());
    return nullptr;
  }
  return xstrdup(triple->c_str());
}

// Gap: llvm-c installs a handler for report_fatal_error only (LLVMInstallFatalErrorHandler);
// an allocation LLVM cannot make (report_bad_alloc_error) aborts the process. A malformed
// bitcode record can ask for that much: 34 GB for one bit changed in a 2.6 KB module
// (found by test/fuzz/input). It becomes an error like any other, through fatal().
// Named by the input the failing thread was reading (out_of_memory); and operator new's
// failures (std::bad_alloc, which would abort: LLVM is built without exceptions) go the
// same way through LLVM's new-handler.
static void bad_alloc(void *, const char *reason, bool) {
  out_of_memory(reason);
}

extern "C" void bridge_handle_bad_alloc(void) {
  llvm::install_bad_alloc_error_handler(bad_alloc, nullptr);
  llvm::install_out_of_memory_new_handler();
}

// IR older LLVMs wrote that LLVM 22's verifier refuses: an allocsize attribute whose
// argument is no integer parameter (intel's device-global tests, made by clang 14, put
// "nobuiltin allocsize(0)" on a call passing a pointer). It describes no allocation: dropped
// from functions and calls, as LLVM's readers drop broken debug info. Whether one was.
static bool drop_bad_allocsize(llvm::Module &module) {
  auto bad = [](const llvm::AttributeList &attrs, llvm::FunctionType *type) {
    llvm::Attribute a = attrs.getFnAttr(llvm::Attribute::AllocSize);
    if (!a.isValid()) return false;
    auto is_integer = [type](unsigned i) {
      return i < type->getNumParams() && type->getParamType(i)->isIntegerTy();
    };
    auto args = a.getAllocSizeArgs();
    return !is_integer(args.first) || (args.second && !is_integer(*args.second));
  };
  bool dropped = false;
  for (llvm::Function &f : module) {
    if (bad(f.getAttributes(), f.getFunctionType())) {
      f.removeFnAttr(llvm::Attribute::AllocSize);
      dropped = true;
    }
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (bad(call->getAttributes(), call->getFunctionType())) {
            call->removeFnAttr(llvm::Attribute::AllocSize);
            dropped = true;
          }
  }
  return dropped;
}

// The other: an sret parameter of a kernel (spir_kernel, amdgpu_kernel), which clang 14 wrote
// where a kernel was made of a getter (intel's SYCL-2020-zeroinitializer-array-of-arrays.ll) and
// LLVM 22's verifier refuses ("Calling convention does not allow sret"). No caller reads a
// kernel's return slot: the parameter stays, only the attribute goes. Whether one did.
static bool drop_kernel_sret(llvm::Module &module) {
  bool dropped = false;
  for (llvm::Function &f : module) {
    llvm::CallingConv::ID cc = f.getCallingConv();
    if (cc != llvm::CallingConv::SPIR_KERNEL && cc != llvm::CallingConv::AMDGPU_KERNEL) continue;
    for (unsigned i = 0; i < f.arg_size(); i++)
      if (f.hasParamAttribute(i, llvm::Attribute::StructRet)) {
        f.removeParamAttr(i, llvm::Attribute::StructRet);
        dropped = true;
      }
  }
  return dropped;
}

// Verifies MODULE as LLVM's readers do (after drop_bad_allocsize and drop_kernel_sret, each
// with a warning naming NAME unless QUIET): -1 with *errmsg "invalid module: FIRST LINE" when
// the verifier rejects it; broken debug info is no error but stripped, with a warning naming
// NAME unless QUIET (LLVM's readers strip it too, printing the verifier's report raw, naming
// no file).
static int verify_as_readers_do(llvm::Module &module, const char *name, bool quiet,
                                char **errmsg) {
  if (drop_bad_allocsize(module) && !quiet)
    warning(name, "an allocsize attribute whose argument is no integer parameter (which older "
                  "LLVMs wrote and LLVM 22 refuses) was dropped");
  if (drop_kernel_sret(module) && !quiet)
    warning(name, "an sret attribute on a kernel's parameter (which older LLVMs wrote and "
                  "LLVM 22 refuses) was dropped");
  std::string report;
  llvm::raw_string_ostream os(report);
  bool broken_debug_info = false;
  bool invalid = llvm::verifyModule(module, &os, &broken_debug_info);
  os.flush();
  std::string first = report.substr(0, report.find('\n'));
  const char *why = first.empty() ? "LLVM's verifier rejects it" : first.c_str();
  if (invalid) {
    *errmsg = format("invalid module: %s", why);
    return -1;
  }
  if (broken_debug_info) {
    llvm::StripDebugInfo(module);
    if (!quiet) warning(name, "invalid debug info, dropped: %s", why);
  }
  return 0;
}

// The two bitcode readers below: the bodies read one by one (the module stays
// materializable, so the reader's own check has not run) and verified, then the module
// finished the reader's way (materializeAll: auto-upgrades). WHOLE: only a module with debug
// info is verified (the one the reader itself would verify), broken debug info quietly.
static int read_bitcode(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                        bool whole, LLVMModuleRef *out, char **errmsg) {
  *out = nullptr;
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), name);
  auto read_error = [&](llvm::Error err) {
    std::string why = llvm::toString(std::move(err));
    *errmsg = format("invalid bitcode: %s", why.c_str());
    return -1;
  };
  llvm::Expected<std::unique_ptr<llvm::Module>> lazy =
      llvm::getLazyBitcodeModule(buffer, *llvm::unwrap(ctx));
  if (!lazy) return read_error(lazy.takeError());
  std::unique_ptr<llvm::Module> module = std::move(*lazy);
  if (llvm::Error err = module->materializeMetadata()) return read_error(std::move(err));
  if (!whole || llvm::getDebugMetadataVersionFromModule(*module) == llvm::DEBUG_METADATA_VERSION) {
    for (llvm::Function &f : *module)
      if (llvm::Error err = f.materialize()) return read_error(std::move(err));
    if (verify_as_readers_do(*module, name, whole, errmsg)) return -1;
  }
  if (llvm::Error err = module->materializeAll()) return read_error(std::move(err));
  if (whole) { // reported where the input was first read
    drop_bad_allocsize(*module);
    drop_kernel_sret(*module);
  }
  *out = llvm::wrap(module.release());
  return 0;
}

// Gap: llvm-c reads a module whole (LLVMParseBitcodeInContext2) before LLVMVerifyModule can
// see it, and reading it whole verifies a module with debug info itself: an invalid one ends
// the process through report_fatal_error ("Broken module found"), naming no file. Here the
// bodies are read one by one (the module stays materializable, so the reader's own check has
// not run), the verifier's first message becomes the error, and only a valid module is
// finished the reader's way (materializeAll: auto-upgrades, debug info stripped if broken).
extern "C" int bridge_read_verified(LLVMContextRef ctx, const uint8_t *data, size_t size,
                                    const char *name, LLVMModuleRef *out, char **errmsg) {
  return read_bitcode(ctx, data, size, name, false, out, errmsg);
}

// Gap: LLVMParseBitcodeInContext2 reads a module whole, and LLVM's reader then verifies a
// module with debug info and prints the verifier's whole report raw on stderr before it
// strips broken debug info (UpgradeDebugInfo). An input whose debug info is broken was
// already reported where it was first read (bridge_read_verified); a later eager read of its
// bytes (full LTO, a link without its split stage) strips it here, quietly. Only a module
// with debug info is verified, as the reader itself would.
extern "C" int bridge_read_whole(LLVMContextRef ctx, const uint8_t *data, size_t size,
                                 const char *name, LLVMModuleRef *out, char **errmsg) {
  return read_bitcode(ctx, data, size, name, true, out, errmsg);
}

// Gap: LLVMParseIRInContext runs LLVM's debug-info upgrade on LLVM assembly, which verifies a
// module with debug info itself: an invalid one ended the process ("Broken module found",
// then SIGABRT, contained as a crash), broken debug info printed the verifier's whole report
// raw on stderr. Here the parser runs without that upgrade, the verifier's first message is
// the error, broken debug info is a warning naming the input and stripped, and only then is
// the upgrade run, on a valid module. 0 with *out, or -1 with *errmsg (the parser's message,
// as LLVMParseIRInContext gives it, or "invalid module: ...").
extern "C" int bridge_parse_assembly_verified(LLVMContextRef ctx, const uint8_t *data,
                                              size_t size, const char *name, LLVMModuleRef *out,
                                              char **errmsg) {
  *out = nullptr;
  llvm::LLVMContext &context = *llvm::unwrap(ctx);
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), name);
  llvm::StringRef text = buffer->getBuffer();
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  llvm::SMDiagnostic diagnostic;
  auto module = std::make_unique<llvm::Module>(name, context);
  if (llvm::LLParser(text, sources, diagnostic, module.get(), nullptr, context)
          .Run(/*UpgradeDebugInfo=*/false)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print(nullptr, os, false);
    os.flush();
    *errmsg = xstrdup(message.c_str());
    return -1;
  }
  if (verify_as_readers_do(*module, name, false, errmsg)) return -1;
  llvm::UpgradeDebugInfo(*module);
  *out = llvm::wrap(module.release());
  return 0;
}

// Gap: LLVMVerifyModule counts broken debug info as an error, where LLVM's readers strip it
// with a warning; this verifies as they do. 0, or -1 with *errmsg "invalid module: FIRST
// LINE" (for a module not read through bridge_read_verified: LLVM assembly).
extern "C" int bridge_verify_module(LLVMModuleRef m, char **errmsg) {
  std::string report;
  llvm::raw_string_ostream os(report);
  bool broken_debug_info = false;
  if (!llvm::verifyModule(*llvm::unwrap(m), &os, &broken_debug_info)) return 0;
  os.flush();
  std::string first = report.substr(0, report.find('\n'));
  *errmsg = format("invalid module: %s", first.empty() ? "LLVM's verifier rejects it"
                                                       : first.c_str());
  return -1;
}

// Gap: llvm-c has no demangler (llvm/Demangle is C++ only), and messages name symbols as
// people wrote them (base/names.c: symbol_for_message). The Itanium demangler LLVM's tools
// use; NULL for a name that is not an Itanium mangling.
extern "C" char *bridge_demangle(const char *mangled) {
  char *demangled = llvm::itaniumDemangle(mangled);
  if (!demangled) return nullptr;
  char *copy = xstrdup(demangled); // ours are freed with free() too, but allocated by xmalloc
  std::free(demangled);
  return copy;
}

// Gap: llvm-c's builder is an IRBuilder with a ConstantFolder, so a GEP or a cast whose operands
// are all constants comes back as a constant expression, and a bitcast to the same type as its
// operand. intel's sycl-post-link builds these as instructions (GetElementPtrInst::Create, new
// BitCastInst, new TruncInst), which its tests read by name; these insert the instruction itself.
extern "C" LLVMValueRef bridge_build_unfolded_gep(LLVMBuilderRef b, LLVMTypeRef type,
                                                   LLVMValueRef ptr, LLVMValueRef index,
                                                   const char *name) {
  llvm::Value *idx = llvm::unwrap(index);
  llvm::Instruction *gep =
      llvm::GetElementPtrInst::Create(llvm::unwrap(type), llvm::unwrap(ptr), {idx});
  return llvm::wrap(llvm::unwrap(b)->Insert(gep, name));
}

extern "C" LLVMValueRef bridge_build_unfolded_cast(LLVMBuilderRef b, LLVMOpcode op,
                                                    LLVMValueRef value, LLVMTypeRef type,
                                                    const char *name) {
  llvm::Instruction::CastOps cast;
  switch (op) {
  case LLVMBitCast: cast = llvm::Instruction::BitCast; break;
  case LLVMTrunc: cast = llvm::Instruction::Trunc; break;
  default: std::abort(); // our bug: only these two are needed
  }
  llvm::Instruction *inst = llvm::CastInst::Create(cast, llvm::unwrap(value), llvm::unwrap(type));
  return llvm::wrap(llvm::unwrap(b)->Insert(inst, name));
}
