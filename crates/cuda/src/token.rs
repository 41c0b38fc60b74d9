//! Tokens: what the lexer hands the parser, each with its span.

use crate::diagnostic::Span;
use crate::types::Scalar;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// The kinds of token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    /// An integer literal, already typed by C's rules (`int` if it fits, else
    /// `unsigned int` for hex and octal or with a `u` suffix).
    Int {
        value: u32,
        ty: Scalar,
    },
    /// A float literal with its `f` suffix.
    Float(f32),
    Keyword(Keyword),
    Punct(Punct),
    Eof,
}

/// The keywords of the subset. Unsupported C and CUDA keywords never become
/// tokens: the lexer names them in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keyword {
    Void,
    Int,
    Unsigned,
    Float,
    Bool,
    Const,
    If,
    Else,
    For,
    While,
    Break,
    Continue,
    Return,
    True,
    False,
    Global,
    Device,
    Shared,
    /// `__restrict__`: a promise about aliasing, which an unoptimised
    /// compiler can ignore.
    Restrict,
    /// `inline` and `__forceinline__`: every device function is inlined anyway.
    Inline,
    Dim3,
}

/// Punctuators, longest first where they share a prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Punct {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Dot,
    Question,
    Colon,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    AndAnd,
    OrOr,
    Shl,
    Shr,
    Assign,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    AmpAssign,
    PipeAssign,
    CaretAssign,
    ShlAssign,
    ShrAssign,
    PlusPlus,
    MinusMinus,
    /// `<<<`, opening a launch configuration.
    LaunchOpen,
    /// `>>>`, closing it.
    LaunchClose,
}

/// Every punctuator's spelling, longest first so the lexer takes the longest
/// match (`<<<` before `<<=` before `<<` before `<`).
pub(crate) const PUNCTUATORS: [(&str, Punct); 46] = [
    ("<<<", Punct::LaunchOpen),
    (">>>", Punct::LaunchClose),
    ("<<=", Punct::ShlAssign),
    (">>=", Punct::ShrAssign),
    ("<=", Punct::Le),
    (">=", Punct::Ge),
    ("==", Punct::EqEq),
    ("!=", Punct::Ne),
    ("&&", Punct::AndAnd),
    ("||", Punct::OrOr),
    ("<<", Punct::Shl),
    (">>", Punct::Shr),
    ("+=", Punct::PlusAssign),
    ("-=", Punct::MinusAssign),
    ("*=", Punct::StarAssign),
    ("/=", Punct::SlashAssign),
    ("%=", Punct::PercentAssign),
    ("&=", Punct::AmpAssign),
    ("|=", Punct::PipeAssign),
    ("^=", Punct::CaretAssign),
    ("++", Punct::PlusPlus),
    ("--", Punct::MinusMinus),
    ("(", Punct::LParen),
    (")", Punct::RParen),
    ("{", Punct::LBrace),
    ("}", Punct::RBrace),
    ("[", Punct::LBracket),
    ("]", Punct::RBracket),
    (";", Punct::Semi),
    (",", Punct::Comma),
    (".", Punct::Dot),
    ("?", Punct::Question),
    (":", Punct::Colon),
    ("+", Punct::Plus),
    ("-", Punct::Minus),
    ("*", Punct::Star),
    ("/", Punct::Slash),
    ("%", Punct::Percent),
    ("&", Punct::Amp),
    ("|", Punct::Pipe),
    ("^", Punct::Caret),
    ("~", Punct::Tilde),
    ("!", Punct::Bang),
    ("<", Punct::Lt),
    (">", Punct::Gt),
    ("=", Punct::Assign),
];

/// The spelling of a punctuator, for messages (`expected ';'`).
pub(crate) fn spelling(punct: Punct) -> &'static str {
    PUNCTUATORS.iter().find(|(_, p)| *p == punct).map_or("?", |(s, _)| s)
}

/// The keyword spelled `word`, if it is one of the subset's.
pub(crate) fn keyword(word: &str) -> Option<Keyword> {
    Some(match word {
        "void" => Keyword::Void,
        "int" => Keyword::Int,
        "unsigned" => Keyword::Unsigned,
        "float" => Keyword::Float,
        "bool" => Keyword::Bool,
        "const" => Keyword::Const,
        "if" => Keyword::If,
        "else" => Keyword::Else,
        "for" => Keyword::For,
        "while" => Keyword::While,
        "break" => Keyword::Break,
        "continue" => Keyword::Continue,
        "return" => Keyword::Return,
        "true" => Keyword::True,
        "false" => Keyword::False,
        "__global__" => Keyword::Global,
        "__device__" => Keyword::Device,
        "__shared__" => Keyword::Shared,
        "__restrict__" => Keyword::Restrict,
        "inline" | "__forceinline__" => Keyword::Inline,
        "dim3" => Keyword::Dim3,
        _ => return None,
    })
}

/// For a C, C++ or CUDA keyword the subset leaves out, the message that
/// names it and says what to write instead.
pub(crate) fn unsupported_keyword(word: &str) -> Option<String> {
    let advice = match word {
        "double" => "use 'float'",
        "char" | "short" | "long" | "signed" => "use 'int' or 'unsigned'",
        "struct" | "union" | "class" | "enum" | "typedef" => "use separate variables or arrays",
        "template" | "typename" => "the only template is device_array<T>",
        "goto" => "use loops, 'break' and 'continue'",
        "switch" | "case" | "default" => "use 'if' and 'else'",
        "do" => "use a 'while' loop",
        "sizeof" => "write the size in bytes",
        "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast" => "use a C cast such as '(float)x'",
        "new" | "delete" | "malloc" | "free" => "allocate with device_array<T>(n)",
        "namespace" | "using" => "write names in full",
        "__constant__" => "pass the values as kernel parameters",
        "__host__" => "host code goes in 'void host()'",
        "static" | "extern" | "volatile" | "auto" | "register" | "asm" | "__managed__" => {
            "it is not part of the subset"
        }
        "__syncwarp" | "__shfl_sync" | "__shfl_down_sync" | "__ballot_sync" | "atomicSub" | "atomicMin"
        | "atomicExch" => "the subset's builtins are listed in docs/cuda.md",
        _ => return None,
    };
    Some(format!("'{word}' is not supported; {advice}"))
}
