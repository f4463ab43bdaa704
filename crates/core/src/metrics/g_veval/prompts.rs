//! The G-VEval prompt templates (Tong et al., "G-VEval: A Versatile Metric for Evaluating Image
//! and Video Captions Using GPT-4o", appendix B), quoted from the authors' code:
//! github.com/ztangaj/gveval, commit `fee3fd7e758f5395f82c1a9426bec2c227824b59`, files
//! `evaluation/gveval/prompts/{img,vid,vid/accr}/{ref-free,ref-only,combined}.txt`. Where the
//! code and the paper differ, the text here is the code's (it produced the published numbers)
//! and each constant's doc lists the differences. The texts are kept byte for byte, including
//! the trailing spaces, the missing final newline and the authors' typos ("scor").
//!
//! Layout differences common to all nine, not repeated below: the paper's rendering puts each
//! placeholder on its label's line ("Reference captions: {{Reference}}") and the example
//! sentence on the line of "… like this:", and wraps each prompt in “…”; the files put the
//! placeholder and the example sentence on lines of their own.
//!
//! # How the authors fill and send them (`evaluation/gveval/scorer.py`, `Scorer.gveval`)
//!
//! * Filling is `str.replace`, not `str.format`: `{{Reference}}` becomes the references,
//!   then `{{Caption}}` the candidate. The doubled braces of `${{score}}$` and
//!   `α{{accuracy_score}}α` are therefore *not* collapsed: GPT-4o saw them doubled ([`fill`]).
//! * References: `"'" + "'; '".join(refs)` ([`join_references`]).
//! * With an image the prompt is a `user` message (text part, then an `image_url` part with a
//!   base64 data URL); without one it is a single `system` message. The choice follows whether
//!   an image was passed, not the mode; the authors' harness passes one in every mode.
//! * Image `detail`: the caller's `resolution` (`"low"` in their Flickr8k and FOIL runs); video
//!   is forced to `"high"`. A video is first turned into one 1536×512 PNG of three frames.
//! * `gpt-4o-2024-05-13`, temperature 1, top_p 1, `logprobs` with `top_logprobs` 5, no
//!   `max_tokens`.

/// What the caption describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Medium {
    Image,
    Video,
}

impl Medium {
    pub const ALL: [Medium; 2] = [Medium::Image, Medium::Video];

    pub fn id(self) -> &'static str {
        match self {
            Medium::Image => "image",
            Medium::Video => "video",
        }
    }

    pub fn from_id(id: &str) -> Option<Medium> {
        Medium::ALL.into_iter().find(|m| m.id() == id)
    }

    /// The authors' prompt folder.
    fn folder(self) -> &'static str {
        match self {
            Medium::Image => "img",
            Medium::Video => "vid",
        }
    }
}

/// The paper's three settings: what the judge is given besides the caption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The image (or the three video frames) only.
    RefFree,
    /// The reference captions only.
    RefOnly,
    /// The image (or frames) and the reference captions.
    Combined,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::RefFree, Mode::RefOnly, Mode::Combined];

    pub fn id(self) -> &'static str {
        match self {
            Mode::RefFree => "ref_free",
            Mode::RefOnly => "ref_only",
            Mode::Combined => "combined",
        }
    }

    pub fn from_id(id: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == id)
    }

    /// Whether the prompt asks the judge to look at an image. The ref-only prompts never
    /// mention one (the authors' code would still attach an image if handed one, and their
    /// evaluation harness hands one over in every mode).
    pub fn needs_image(self) -> bool {
        matches!(self, Mode::RefFree | Mode::Combined)
    }

    /// Whether the prompt has a `{{Reference}}` slot.
    pub fn needs_references(self) -> bool {
        matches!(self, Mode::RefOnly | Mode::Combined)
    }

    /// The authors' file name without `.txt`.
    fn file_stem(self) -> &'static str {
        match self {
            Mode::RefFree => "ref-free",
            Mode::RefOnly => "ref-only",
            Mode::Combined => "combined",
        }
    }
}

/// Replaced by the references, joined by [`join_references`].
pub const REFERENCE_PLACEHOLDER: &str = "{{Reference}}";
/// Replaced by the candidate caption.
pub const CAPTION_PLACEHOLDER: &str = "{{Caption}}";
/// The letters that wrap the four ACCR scores, in the order of the authors' `final_score`
/// list: Accuracy α, Completeness β, Conciseness ψ, Relevance δ.
pub const ACCR_LETTERS: [char; 4] = ['α', 'β', 'ψ', 'δ'];

/// Image, reference-free (paper B.1, "Reference-Free Setting").
/// Source: `evaluation/gveval/prompts/img/ref-free.txt`. Differences from the paper:
/// * The paper has a line "Image is attached" after `Generated captions: {{Caption}}`; the code has
///   none.
pub const IMAGE_REF_FREE: &str = "\
You will be given one sentence of visual caption generated from one image.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the image. The generated caption \
should accurately describe the important aspects of the image. Annotators were instructed to \
penalize captions which contained redundancies and excess information.\n\
\n\
Evaluation Steps:\n\
\n\
1. Carefully observe the image provided.\n\
2. Identify the main points of the visual content in the image.\n\
3. Assess how well the generated caption covers the main points of the visual content, and how \
much irrelevant or redundant information it contains.\n\
4. Assign an integer score from 0 to 100, please remember it.\n\
\n\
Generated captions:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give detailed reason for your score, and ending with sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the dollar \
signs ($).";

/// Image, reference-only (paper B.1, "Reference-Only Setting").
/// Source: `evaluation/gveval/prompts/img/ref-only.txt`. Differences from the paper:
/// * Same wording as the paper, including "on one metric" without a full stop; layout only.
pub const IMAGE_REF_ONLY: &str = "\
You will be given one sentence of visual caption generated from one image. \n\
\n\
Your task is to rate the generated caption on one metric\n\
\n\
Please make sure you read and understand these reference captions carefully. Please keep these \
references open while reviewing, and refer to them as needed. \n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the references. The generated \
caption should include the important information in the references. Annotators were instructed \
to penalize captions which contained redundancies and excess information. \n\
\n\
Evaluation Steps:\n\
\n\
1. Read the reference captions carefully.\n\
2. Compare the generated caption to the reference captions and identify the main points of the \
visual content.\n\
3. Assess how well the generated caption covers the main points of the visual content, and how \
much irrelevant or redundant information it contains.\n\
4. Assign an integer score from 0 to 100, please remember it.\n\
\n\
Reference captions:\n\
{{Reference}}\n\
\n\
Generated captions:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give detailed reason for your score, and ending with sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the dollar \
signs ($). ";

/// Image, combined (paper B.1, "Combined Setting").
/// Source: `evaluation/gveval/prompts/img/combined.txt`. Differences from the paper:
/// * Same wording as the paper; layout only.
pub const IMAGE_COMBINED: &str = "\
You will be given one sentence of visual caption generated from one image.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Please make sure you read and understand these reference captions carefully. Please keep these \
references open while reviewing, and refer to them as needed.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the references and the image. The \
generated caption should accurately describe the important aspects of the image while \
including the essential information from the references. Annotators were instructed to \
penalize captions which contained redundancies and excess information.\n\
\n\
Evaluation Steps:\n\
\n\
1. Carefully observe the provided image to understand its main content.\n\
2. Read the reference captions carefully to identify the important information they highlight.\n\
3. Compare the generated caption to both the reference captions and the visual content of the \
image.\n\
4. Assess how well the generated caption covers the main points of the visual content and the \
reference captions, and how much irrelevant or redundant information it contains.\n\
5. Assign an integer score from 0 to 100, considering both the alignment with the image and \
the inclusion of key points from the references. Please remember the score.\n\
\n\
Reference captions:\n\
{{Reference}}\n\
\n\
Image is attached\n\
\n\
Generated captions:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give a detailed reason for your score, ending with a sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in dollar signs \
($).";

/// Video, reference-free (paper B.2, "Reference-Free Setting").
/// Source: `evaluation/gveval/prompts/vid/ref-free.txt`. Differences from the paper:
/// * Code "Generated Caption:", paper "Generated captions:".
/// * The paper has a line "Video Frames are attached" after the caption; the code has none.
/// * The paper runs the four evaluation steps into one paragraph; the code has one per line.
pub const VIDEO_REF_FREE: &str = "\
You will be given one sentence of visual caption generated from a complete video. For \
evaluation purposes, you are provided with a single image that contains three concatenated \
frames from the video. These frames are meant to represent key moments from the video but do \
not encompass the entire content.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the video frames. The generated \
caption should accurately describe the important aspects of the video as represented by these \
key frames. Annotators were instructed to penalize captions which contained redundancies and \
excess information.\n\
\n\
Evaluation Steps:\n\
\n\
1. Carefully examine the provided image, noting that it includes three distinct frames labeled \
as Frame 1, Frame 2, and Frame 3.\n\
2. Identify the main points of the visual content across these key frames.\n\
3. Assess how well the generated caption covers the main points of the visual content, and how \
much irrelevant or redundant information it contains.\n\
4. Assign an integer score from 0 to 100, please remember it.\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give detailed reason for your score, and ending with sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the dollar \
signs ($).";

/// Video, reference-only (paper B.2, "Reference-Only Setting").
/// Source: `evaluation/gveval/prompts/vid/ref-only.txt`. Differences from the paper:
/// * Code "Reference Captions:", paper "Reference captions:".
/// * Code "Generated Caption:", paper "Generated captions:".
/// * Code "You should first give a detailed reason for your score, ending with a sentence like
///   this:", paper "You should first give detailed reason for your score, and ending with sentence
///   like this:".
/// * Code "wrapped in dollar signs ($).", paper "wrapped in the dollar signs ($).".
pub const VIDEO_REF_ONLY: &str = "\
You will be given a caption generated from a complete video. For evaluation purposes, you are \
provided with reference captions that describe specific frames or the overall video content.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Please make sure you read and understand these reference captions carefully. Please keep these \
references open while reviewing, and refer to them as needed.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the references. The generated \
caption should include the important information in the references. Annotators were instructed \
to penalize captions which contained redundancies and excess information.\n\
\n\
Evaluation Steps:\n\
\n\
1. Read the reference captions carefully.\n\
2. Compare the generated caption to the reference captions and identify the main points of the \
video content.\n\
3. Assess how well the generated caption covers the main points of the video content, and how \
much irrelevant or redundant information it contains.\n\
4. Assign an integer score from 0 to 100, please remember it.\n\
\n\
Reference Captions:\n\
{{Reference}}\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give a detailed reason for your score, ending with a sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in dollar signs \
($).";

/// Video, combined (paper B.2, "Combined Setting").
/// Source: `evaluation/gveval/prompts/vid/combined.txt`. Differences from the paper:
/// * Code "Reference Captions:", paper "Reference captions:".
/// * Code "Video Frames are attached." with a full stop, paper without.
/// * Code "Generated Caption:", paper "Generated captions:".
pub const VIDEO_COMBINED: &str = "\
You will be given a caption generated from a complete video. For evaluation purposes, you are \
provided with a single image that combines three key frames from the video. Additionally, \
reference captions that describe these specific frames or the overall video content are also \
provided.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Please make sure you read and understand these reference captions carefully. Please keep these \
references open while reviewing, and refer to them as needed.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the references and the video \
frames. The generated caption should accurately describe the important aspects of the image \
while including the essential information from the references. Annotators were instructed to \
penalize captions which contained redundancies and excess information.\n\
\n\
Evaluation Steps:\n\
\n\
1. Carefully examine the provided image, which includes three distinct frames labeled as Frame \
1, Frame 2, and Frame 3, to understand the main content of the video.\n\
2. Read the reference captions carefully to identify the important information they highlight \
about the video content.\n\
3. Compare the generated caption to both the reference captions and the visual content of the \
key frames.\n\
4. Assess how well the generated caption covers the main points of the video content as \
represented by the key frames and the reference captions, and how much irrelevant or redundant \
information it contains.\n\
5. Assign an integer score from 0 to 100, considering both the alignment with the video \
content (as shown in the key frames) and the inclusion of key points from the references. \
Please remember the score.\n\
\n\
Reference Captions:\n\
{{Reference}}\n\
\n\
Video Frames are attached.\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
Response Format:\n\
\n\
You should first give a detailed reason for your score, ending with a sentence like this:\n\
The final score is ${{score}}$.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in dollar signs \
($).";

/// Video ACCR, reference-free (paper B.3, "Reference-Free Setting"). Step 3 mentions reference
/// captions the judge is not given, in the code and the paper alike.
/// Source: `evaluation/gveval/prompts/vid/accr/ref-free.txt`. Differences from the paper:
/// * Sub-step numbered "1." and indented four spaces in the code, "1)" in the paper.
/// * Code "Generated Caption:", paper "Generated captions:".
/// * The paper has a line "Video Frames are attached" after the caption; the code has none.
/// * The paper has a "Response Format:" heading before "You should first give…"; the code has none.
/// * Code "....." (five full stops), paper "….." (an ellipsis and two full stops).
/// * Code "α{{accuracy_score}}α.", paper "α{{accuracy_score}} α." (a space before the closing α).
/// * Code "δ{{relevance_score}}δ.", paper "δ{relevance_score}}δ." (one opening brace).
/// * The code puts the four example sentences on four lines, the paper on one.
pub const VIDEO_ACCR_REF_FREE: &str = "\
You will be given one sentence of visual caption generated from a complete video. For \
evaluation purposes, you are provided with a single image that contains three concatenated \
frames from the video. These frames are meant to represent key moments from the video but do \
not encompass the entire content.\n\
\n\
Your task is to rate the generated caption on one metric.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - selection of important content from the video frames. The generated \
caption should accurately describe the important aspects of the video as represented by these \
key frames. Annotators were instructed to penalize captions which contained redundancies and \
excess information.\n\
\n\
Evaluation Dimensions:\n\
\n\
Accuracy: Does the caption correctly describe the entities and actions shown in the video \
without errors or hallucinations?\n\
Completeness: Does the caption cover all significant events and aspects of the video, \
including dynamic actions and possible scene transitions?\n\
Conciseness: Is the caption clear and succinct, avoiding unnecessary details and repetition?\n\
Relevance: Is the caption pertinent to the video content, without including irrelevant \
information or questions?\n\
\n\
Evaluation Steps: \n\
1. Carefully examine the provided image, noting that it includes three distinct frames labeled \
as Frame 1, Frame 2, and Frame 3.\n\
2. Read the generated caption.\n\
\x20\x20\x20\x201. Carefully read the generated caption that needs to be evaluated.\n\
3. Compare the generated caption with the reference captions and assess how well it captures \
the essence of the video.\n\
4. Assess how well the generated caption covers the main points of the visual content, and how \
much irrelevant or redundant information it contains.\n\
5. Check for the inclusion of irrelevant details or the omission of significant elements.\n\
6. Assign an integer scor from 0 to 100 for the caption based on the following dimensions:\n\
\x20\x20\x20\x20- Accuracy: Does the caption correctly describe the entities and actions shown \
in the video without errors or hallucinations?\n\
\x20\x20\x20\x20- Completeness: Does the caption cover all significant events and aspects of \
the video, including dynamic actions and possible scene transitions?\n\
\x20\x20\x20\x20- Conciseness: Is the caption clear and succinct, avoiding unnecessary details \
and repetition?\n\
\x20\x20\x20\x20- Relevance: Is the caption pertinent to the video content, without including \
irrelevant information or questions?\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
You should first give detailed reason for your scores, and ending with sentence for each score \
like this:\n\
..... The Accuracy score is α{{accuracy_score}}α.\n\
..... The Completeness score is β{{completeness_score}}β.\n\
..... The Conciseness score is ψ{{conciseness_score}}ψ.\n\
..... The Relevance score is δ{{relevance_score}}δ.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the \
corresponding Greek alphabet.\n\
Wrap Accuracy score in α\n\
Wrap Completeness score in β\n\
Wrap Conciseness score in ψ\n\
Wrap Relevance score in δ ";

/// Video ACCR, reference-only (paper B.3, "Reference-Only Setting").
/// Source: `evaluation/gveval/prompts/vid/accr/ref-only.txt`. Differences from the paper:
/// * Sub-steps numbered "1." / "2." and indented four spaces in the code, "1)" / "2)" in the paper.
/// * Code "Reference Captions:", paper "Reference captions:".
/// * Code "Generated Caption:", paper "Generated captions:".
/// * The paper has a "Response Format:" heading before "You should first give…"; the code has none.
/// * Code "....." (five full stops), paper "….." (an ellipsis and two full stops).
/// * Code "α{{accuracy_score}}α.", paper "α{{accuracy_score}} α." (a space before the closing α).
/// * Code "δ{{relevance_score}}δ.", paper "δ{relevance_score}}δ." (one opening brace).
/// * The code puts the four example sentences on four lines, the paper on one.
pub const VIDEO_ACCR_REF_ONLY: &str = "\
You will be given a caption generated for a short video segment.\n\
\n\
Your task is to rate the generated caption based on its accuracy in capturing the essential \
content of the video as described in the reference captions.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - The generated caption should accurately reflect the content in the \
reference captions and appropriately describe the key actions or events visible in the video. \
Annotators should penalize captions that include irrelevant details or omit significant \
elements indicated in the reference captions and the video.\n\
\n\
Evaluation Dimensions:\n\
\n\
Accuracy: Does the caption correctly describe the entities and actions shown in the video \
without errors or hallucinations?\n\
Completeness: Does the caption cover all significant events and aspects of the video, \
including dynamic actions and possible scene transitions?\n\
Conciseness: Is the caption clear and succinct, avoiding unnecessary details and repetition?\n\
Relevance: Is the caption pertinent to the video content, without including irrelevant \
information or questions?\n\
\n\
Evaluation Steps: \n\
1. Examine the provided reference captions carefully.\n\
\x20\x20\x20\x201. Read the full reference captions that describe the overall video content or \
specific actions.\n\
\x20\x20\x20\x202. Review each reference caption thoroughly to understand what aspects of the \
video they highlight.\n\
2. Read the generated caption.\n\
\x20\x20\x20\x201. Carefully read the generated caption that needs to be evaluated.\n\
3. Compare the generated caption with the reference captions and assess how well it captures \
the essence of the video.\n\
4. Evaluate how accurately and completely the generated caption describes the events and \
entities shown in the video.\n\
5. Check for the inclusion of irrelevant details or the omission of significant elements.\n\
6. Assign an integer scor from 0 to 100 for the caption based on the following dimensions:\n\
\x20\x20\x20\x20- Accuracy: Does the caption correctly describe the entities and actions shown \
in the video without errors or hallucinations?\n\
\x20\x20\x20\x20- Completeness: Does the caption cover all significant events and aspects of \
the video, including dynamic actions and possible scene transitions?\n\
\x20\x20\x20\x20- Conciseness: Is the caption clear and succinct, avoiding unnecessary details \
and repetition?\n\
\x20\x20\x20\x20- Relevance: Is the caption pertinent to the video content, without including \
irrelevant information or questions?\n\
\n\
Reference Captions:\n\
{{Reference}}\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
You should first give detailed reason for your scores, and ending with sentence for each score \
like this:\n\
..... The Accuracy score is α{{accuracy_score}}α.\n\
..... The Completeness score is β{{completeness_score}}β.\n\
..... The Conciseness score is ψ{{conciseness_score}}ψ.\n\
..... The Relevance score is δ{{relevance_score}}δ.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the \
corresponding Greek alphabet.\n\
Wrap Accuracy score in α\n\
Wrap Completeness score in β\n\
Wrap Conciseness score in ψ\n\
Wrap Relevance score in δ ";

/// Video ACCR, combined (paper B.3, "Combined Setting").
/// Source: `evaluation/gveval/prompts/vid/accr/combined.txt`. Differences from the paper:
/// * Code "…without errors or hallucinations?" under Evaluation Dimensions, paper without the "?".
/// * Sub-steps numbered "1." / "2." / "3." and indented four spaces in the code, "1)" … in the
///   paper.
/// * Code step 5 "Assign an integer scor", paper "Assign an integer score" (the other two ACCR
///   prompts say "scor" in both).
/// * Code "Reference Captions:", paper "Reference captions:".
/// * The paper has a line "Video Frames are attached" between the references and the caption; the
///   code has none.
/// * Code "Generated Caption:", paper "Generated captions:".
/// * The paper has a "Response Format:" heading before "You should first give…"; the code has none.
/// * Code "....." (five full stops), paper "….." (an ellipsis and two full stops).
/// * Code "α{{accuracy_score}}α.", paper "α{{accuracy_score}} α." (a space before the closing α).
/// * Code "δ{{relevance_score}}δ.", paper "δ{relevance_score}}δ." (one opening brace).
/// * The code puts the four example sentences on four lines, the paper on one.
pub const VIDEO_ACCR_COMBINED: &str = "\
You will be given one sentence of visual caption generated from a complete video. For \
evaluation purposes, you are provided with a single image that contains three concatenated \
frames from the video. These frames are meant to represent key moments from the video but do \
not encompass the entire content.\n\
\n\
Your task is to rate the generated caption based on its accuracy in capturing the essential \
content of the video, as described by both the provided reference captions and the visual \
information encoded in selected frames from the video.\n\
\n\
Evaluation Criteria:\n\
\n\
Score is from 0 to 100 - The generated caption should accurately reflect the content as \
described in the reference captions and appropriately describe the key actions or events \
visible in the provided video frames. Annotators should penalize captions that include \
irrelevant details, omit significant elements indicated by the reference captions, or fail to \
accurately describe the visual content of the video.\n\
\n\
Evaluation Dimensions:\n\
\n\
Accuracy: Does the caption correctly describe the entities and actions shown in the video \
without errors or hallucinations?\n\
Completeness: Does the caption cover all significant events and aspects of the video, \
including dynamic actions and possible scene transitions?\n\
Conciseness: Is the caption clear and succinct, avoiding unnecessary details and repetition?\n\
Relevance: Is the caption pertinent to the video content, without including irrelevant \
information or questions?\n\
\n\
Evaluation Steps: \n\
1. Examine the Provided Reference Captions:\n\
\x20\x20\x20\x201. Read the reference captions that describe the overall video content or \
specific actions thoroughly to understand the aspects of the video they highlight.\n\
2. Analyze the Provided Video Frames:\n\
\x20\x20\x20\x201. Carefully examine the provided frames, which represent key moments or \
transitions in the video. Understand the sequence and context of these frames as they relate \
to the entire video.\n\
3. Read the Generated Caption:\n\
\x20\x20\x20\x201. Carefully read the generated caption that needs to be evaluated.\n\
4. Compare and Evaluate:\n\
\x20\x20\x20\x201. Assess how well the generated caption captures the essence of the video by \
comparing it against the reference captions and the visual content of the frames.\n\
\x20\x20\x20\x202. Evaluate the accuracy and completeness of the generated caption in \
describing the events and entities shown in the video and reflected in the reference captions.\n\
\x20\x20\x20\x203. Check for the inclusion of irrelevant details or the omission of \
significant elements indicated by either the reference captions or the video frames.\n\
5. Assign an integer scor from 0 to 100 for the caption based on the following dimensions:\n\
\x20\x20\x20\x20- Accuracy: Does the caption correctly describe the entities and actions shown \
in the video without errors or hallucinations?\n\
\x20\x20\x20\x20- Completeness: Does the caption cover all significant events and aspects of \
the video, including dynamic actions and possible scene transitions?\n\
\x20\x20\x20\x20- Conciseness: Is the caption clear and succinct, avoiding unnecessary details \
and repetition?\n\
\x20\x20\x20\x20- Relevance: Is the caption pertinent to the video content, without including \
irrelevant information or questions?\n\
\n\
Reference Captions:\n\
{{Reference}}\n\
\n\
Generated Caption:\n\
{{Caption}}\n\
\n\
You should first give detailed reason for your scores, and ending with sentence for each score \
like this:\n\
..... The Accuracy score is α{{accuracy_score}}α.\n\
..... The Completeness score is β{{completeness_score}}β.\n\
..... The Conciseness score is ψ{{conciseness_score}}ψ.\n\
..... The Relevance score is δ{{relevance_score}}δ.\n\
\n\
Note that the score should be an integer from 0 to 100, and should be wrapped in the \
corresponding Greek alphabet.\n\
Wrap Accuracy score in α\n\
Wrap Completeness score in β\n\
Wrap Conciseness score in ψ\n\
Wrap Relevance score in δ ";

/// The template for a medium, mode and scoring scheme (`accr`: the four ACCR scores instead of
/// one). ACCR exists only for video: image with `accr` is `None`.
pub fn template(medium: Medium, mode: Mode, accr: bool) -> Option<&'static str> {
    Some(match (medium, accr, mode) {
        (Medium::Image, true, _) => return None,
        (Medium::Image, false, Mode::RefFree) => IMAGE_REF_FREE,
        (Medium::Image, false, Mode::RefOnly) => IMAGE_REF_ONLY,
        (Medium::Image, false, Mode::Combined) => IMAGE_COMBINED,
        (Medium::Video, false, Mode::RefFree) => VIDEO_REF_FREE,
        (Medium::Video, false, Mode::RefOnly) => VIDEO_REF_ONLY,
        (Medium::Video, false, Mode::Combined) => VIDEO_COMBINED,
        (Medium::Video, true, Mode::RefFree) => VIDEO_ACCR_REF_FREE,
        (Medium::Video, true, Mode::RefOnly) => VIDEO_ACCR_REF_ONLY,
        (Medium::Video, true, Mode::Combined) => VIDEO_ACCR_COMBINED,
    })
}

/// The file in github.com/ztangaj/gveval that [`template`] quotes, e.g.
/// `evaluation/gveval/prompts/vid/accr/ref-free.txt`.
pub fn source_path(medium: Medium, mode: Mode, accr: bool) -> Option<String> {
    template(medium, mode, accr)?;
    let accr = if accr { "accr/" } else { "" };
    Some(format!(
        "evaluation/gveval/prompts/{}/{accr}{}.txt",
        medium.folder(),
        mode.file_stem()
    ))
}

/// The references as the authors write them into `{{Reference}}`:
/// `ref = "'; '".join(ref); ref = f"'{ref}"`. Note that the last reference gets no closing
/// quote: `["A dog.", "A cat."]` → `'A dog.'; 'A cat.`, and no references → `'`.
pub fn join_references(references: &[String]) -> String {
    format!("'{}", references.join("'; '"))
}

/// The prompt as GPT-4o saw it: `prompt.replace('{{Reference}}', ref).replace('{{Caption}}',
/// pred)`, in that order. Being plain replacement, everything else is left as written, so
/// `The final score is ${{score}}$.` keeps its doubled braces. The caption goes in verbatim (the
/// authors' dataset loaders collapse whitespace runs in captions and references beforehand;
/// the scorer itself does not). References are ignored by templates without a slot.
pub fn fill(template: &str, caption: &str, references: &[String]) -> String {
    template
        .replace(REFERENCE_PLACEHOLDER, &join_references(references))
        .replace(CAPTION_PLACEHOLDER, caption)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<(Medium, Mode, bool, &'static str)> {
        let mut out = Vec::new();
        for medium in Medium::ALL {
            for mode in Mode::ALL {
                for accr in [false, true] {
                    if let Some(t) = template(medium, mode, accr) {
                        out.push((medium, mode, accr, t));
                    }
                }
            }
        }
        out
    }

    fn refs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    /// 64-bit FNV-1a, to pin the quoted bytes.
    fn fnv1a(s: &str) -> u64 {
        s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    #[test]
    fn nine_templates_and_no_image_accr() {
        assert_eq!(all().len(), 9);
        for mode in Mode::ALL {
            assert_eq!(template(Medium::Image, mode, true), None);
            assert_eq!(source_path(Medium::Image, mode, true), None);
        }
    }

    #[test]
    fn templates_are_the_authors_files_byte_for_byte() {
        // Sizes and FNV-1a hashes of the files at ztangaj/gveval@fee3fd7.
        let expected = [
            (
                "evaluation/gveval/prompts/img/ref-free.txt",
                1028,
                0xed54_0797_ac2c_892c,
            ),
            (
                "evaluation/gveval/prompts/img/ref-only.txt",
                1274,
                0x8835_742c_0fa0_bfa2,
            ),
            (
                "evaluation/gveval/prompts/img/combined.txt",
                1613,
                0x85fd_bcd3_dfe2_fd5a,
            ),
            (
                "evaluation/gveval/prompts/vid/ref-free.txt",
                1397,
                0xb347_5fe2_0b1d_642e,
            ),
            (
                "evaluation/gveval/prompts/vid/ref-only.txt",
                1376,
                0x99e2_2a3d_546e_104b,
            ),
            (
                "evaluation/gveval/prompts/vid/combined.txt",
                2031,
                0xa137_9ca8_7570_9f77,
            ),
            (
                "evaluation/gveval/prompts/vid/accr/ref-free.txt",
                2975,
                0x6979_bd8b_2092_e14c,
            ),
            (
                "evaluation/gveval/prompts/vid/accr/ref-only.txt",
                2999,
                0xce8e_e551_03af_f909,
            ),
            (
                "evaluation/gveval/prompts/vid/accr/combined.txt",
                3762,
                0x9169_86ba_884d_85d3,
            ),
        ];
        for (medium, mode, accr, t) in all() {
            let path = source_path(medium, mode, accr).unwrap();
            let (_, len, hash) = expected.iter().find(|e| e.0 == path).unwrap();
            assert_eq!(t.len(), *len, "{path}");
            assert_eq!(fnv1a(t), *hash, "{path}");
        }
    }

    #[test]
    fn templates_start_and_end_with_the_authors_text() {
        let one_image =
            "You will be given one sentence of visual caption generated from one image.";
        let dollar_end =
            "Note that the score should be an integer from 0 to 100, and should be wrapped in ";
        let cases: [(Medium, Mode, bool, &str, &str); 9] = [
            (Medium::Image, Mode::RefFree, false, one_image, "wrapped in the dollar signs ($)."),
            (Medium::Image, Mode::RefOnly, false, one_image, "wrapped in the dollar signs ($). "),
            (Medium::Image, Mode::Combined, false, one_image, "wrapped in dollar signs ($)."),
            (
                Medium::Video,
                Mode::RefFree,
                false,
                "You will be given one sentence of visual caption generated from a complete video. \
                 For evaluation purposes, you are provided with a single image that contains three \
                 concatenated frames from the video.",
                "wrapped in the dollar signs ($).",
            ),
            (
                Medium::Video,
                Mode::RefOnly,
                false,
                "You will be given a caption generated from a complete video. For evaluation \
                 purposes, you are provided with reference captions",
                "wrapped in dollar signs ($).",
            ),
            (
                Medium::Video,
                Mode::Combined,
                false,
                "You will be given a caption generated from a complete video. For evaluation \
                 purposes, you are provided with a single image that combines three key frames",
                "wrapped in dollar signs ($).",
            ),
            (
                Medium::Video,
                Mode::RefFree,
                true,
                "You will be given one sentence of visual caption generated from a complete video.",
                "Wrap Conciseness score in ψ\nWrap Relevance score in δ ",
            ),
            (
                Medium::Video,
                Mode::RefOnly,
                true,
                "You will be given a caption generated for a short video segment.\n\n",
                "Wrap Conciseness score in ψ\nWrap Relevance score in δ ",
            ),
            (
                Medium::Video,
                Mode::Combined,
                true,
                "You will be given one sentence of visual caption generated from a complete video.",
                "Wrap Conciseness score in ψ\nWrap Relevance score in δ ",
            ),
        ];
        for (medium, mode, accr, start, end) in cases {
            let t = template(medium, mode, accr).unwrap();
            assert!(t.starts_with(start), "{medium:?} {mode:?} {accr}");
            assert!(t.ends_with(end), "{medium:?} {mode:?} {accr}");
            if !accr {
                assert!(t.contains(dollar_end), "{medium:?} {mode:?}");
            }
        }
    }

    #[test]
    fn slots_match_the_mode() {
        for (_, mode, _, t) in all() {
            assert_eq!(t.matches(CAPTION_PLACEHOLDER).count(), 1);
            let n = t.matches(REFERENCE_PLACEHOLDER).count();
            assert_eq!(n, usize::from(mode.needs_references()), "{mode:?}");
        }
    }

    #[test]
    fn fill_puts_caption_and_references_where_the_authors_do() {
        let r = refs(&["A dog runs.", "A brown dog on grass."]);
        let p = fill(IMAGE_REF_ONLY, "a dog", &r);
        assert!(p.contains(
            "Reference captions:\n'A dog runs.'; 'A brown dog on grass.\n\n\
             Generated captions:\na dog\n\nResponse Format:"
        ));
        let p = fill(IMAGE_COMBINED, "a dog", &r);
        assert!(p.contains(
            "Reference captions:\n'A dog runs.'; 'A brown dog on grass.\n\n\
             Image is attached\n\nGenerated captions:\na dog\n\nResponse Format:"
        ));
        let p = fill(VIDEO_COMBINED, "a dog", &r);
        assert!(p.contains(
            "Reference Captions:\n'A dog runs.'; 'A brown dog on grass.\n\n\
             Video Frames are attached.\n\nGenerated Caption:\na dog\n\nResponse Format:"
        ));
        let p = fill(VIDEO_ACCR_REF_ONLY, "a dog", &r);
        assert!(p.contains(
            "Reference Captions:\n'A dog runs.'; 'A brown dog on grass.\n\n\
             Generated Caption:\na dog\n\nYou should first give detailed reason for your scores"
        ));
        // Reference-free: no slot, the references are dropped.
        let p = fill(VIDEO_REF_FREE, "a dog", &r);
        assert!(p.contains("Generated Caption:\na dog\n\nResponse Format:"));
        assert!(!p.contains("A dog runs."));
        for (_, _, _, t) in all() {
            let p = fill(t, "a  dog\n", &r);
            assert!(!p.contains(REFERENCE_PLACEHOLDER) && !p.contains(CAPTION_PLACEHOLDER));
            assert!(p.contains("\na  dog\n\n"), "caption verbatim");
        }
    }

    #[test]
    fn references_are_joined_as_in_scorer_py() {
        assert_eq!(join_references(&refs(&["a", "b", "c"])), "'a'; 'b'; 'c");
        assert_eq!(join_references(&refs(&["only"])), "'only");
        assert_eq!(join_references(&[]), "'");
        // Plain replacement in the authors' order: the reference slot first, then the caption.
        let p = fill(
            "{{Reference}} | {{Caption}}",
            "cap",
            &refs(&["x {{Caption}}"]),
        );
        assert_eq!(p, "'x cap | cap");
    }

    #[test]
    fn final_score_instruction_keeps_its_double_braces() {
        for (_, _, accr, t) in all() {
            if accr {
                continue;
            }
            let p = fill(t, "a dog", &refs(&["A dog."]));
            assert!(p.contains("like this:\nThe final score is ${{score}}$.\n\nNote that"));
            assert!(!p.contains("${score}$"));
        }
    }

    #[test]
    fn accr_asks_for_the_four_wrapped_scores() {
        assert_eq!(ACCR_LETTERS, ['\u{3b1}', '\u{3b2}', '\u{3c8}', '\u{3b4}']);
        for (_, _, accr, t) in all() {
            let p = fill(t, "a dog", &refs(&["A dog."]));
            if !accr {
                assert!(!ACCR_LETTERS.iter().any(|&c| p.contains(c)));
                continue;
            }
            assert!(p.contains(
                "and ending with sentence for each score like this:\n\
                 ..... The Accuracy score is α{{accuracy_score}}α.\n\
                 ..... The Completeness score is β{{completeness_score}}β.\n\
                 ..... The Conciseness score is ψ{{conciseness_score}}ψ.\n\
                 ..... The Relevance score is δ{{relevance_score}}δ.\n\n\
                 Note that the score should be an integer from 0 to 100, and should be wrapped \
                 in the corresponding Greek alphabet.\n\
                 Wrap Accuracy score in α\nWrap Completeness score in β\n\
                 Wrap Conciseness score in ψ\nWrap Relevance score in δ "
            ));
            assert!(p.contains("Assign an integer scor from 0 to 100"));
            assert!(!p.contains('$'));
        }
    }

    #[test]
    fn ids_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(Mode::from_id(mode.id()), Some(mode));
        }
        for medium in Medium::ALL {
            assert_eq!(Medium::from_id(medium.id()), Some(medium));
        }
        assert_eq!(Mode::from_id("ref-free"), None);
        assert_eq!(
            [Mode::RefFree.id(), Mode::RefOnly.id(), Mode::Combined.id()],
            ["ref_free", "ref_only", "combined"]
        );
        assert!(Mode::RefFree.needs_image() && !Mode::RefFree.needs_references());
        assert!(!Mode::RefOnly.needs_image() && Mode::RefOnly.needs_references());
        assert!(Mode::Combined.needs_image() && Mode::Combined.needs_references());
        assert_eq!(
            source_path(Medium::Video, Mode::RefFree, true).as_deref(),
            Some("evaluation/gveval/prompts/vid/accr/ref-free.txt")
        );
        assert_eq!(
            source_path(Medium::Image, Mode::Combined, false).as_deref(),
            Some("evaluation/gveval/prompts/img/combined.txt")
        );
    }
}
